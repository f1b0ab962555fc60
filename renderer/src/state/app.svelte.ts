import { getContext, setContext } from 'svelte';
import { ApprovalQueue } from './approvals.svelte';
import { CallLog } from './calls.svelte';
import { GatewayFeed } from './feed.svelte';
import { Router } from './router.svelte';
import type { Session } from './session.svelte';
import { GatewaySettings } from './settings.svelte';
import { StatsBoard } from './stats.svelte';

/**
 * What lives as long as the owner is logged in: the event stream, the call log and the approval queue keep
 * collecting while any view is shown, so switching views loses nothing; the gateway's settings are read once and
 * kept current, for the Settings view and for every view that shows a path or the data folder. The Stats board
 * outlives its view too, so its range and sort order are still as left after a visit elsewhere (it only fetches
 * while the view reads it).
 */
export class AppState {
  readonly feed = new GatewayFeed();
  readonly router = new Router();
  readonly settings = new GatewaySettings();
  readonly calls: CallLog;
  readonly approvals: ApprovalQueue;
  #stats: StatsBoard | undefined;
  #unfollowSettings: () => void;

  constructor(readonly session: Session) {
    this.calls = new CallLog(this.feed);
    this.approvals = new ApprovalQueue(this.feed);
    void this.settings.load();
    this.#unfollowSettings = this.settings.listen(this.feed);
  }

  get stats(): StatsBoard {
    return (this.#stats ??= new StatsBoard(this.feed));
  }

  dispose(): void {
    this.calls.dispose();
    this.approvals.dispose();
    this.router.dispose();
    this.#unfollowSettings();
  }
}

const KEY = Symbol('pincer-app');

export function provideApp(app: AppState): AppState {
  return setContext(KEY, app);
}

/** The app state, from any component under the shell. */
export function useApp(): AppState {
  const app = getContext<AppState | undefined>(KEY);
  if (!app) throw new Error('useApp() outside the app shell');
  return app;
}
