import { Menu, nativeImage, Tray, type NativeImage } from 'electron';
import { trayIcon, trayMenu, trayTooltip, type TrayActions, type TrayIcon, type TrayState } from './tray-menu.js';

/** A burst of calls rebuilds the menu once: often enough to read live, rarely enough to cost nothing. */
const REBUILD_DELAY_MS = 400;

/** The tray icon and its menu, rebuilt from the gateway's state whenever its events say something changed. */
export class TrayController {
  readonly #tray: Tray;
  readonly #icons: Record<TrayIcon, NativeImage>;
  #timer: NodeJS.Timeout | undefined;
  #shown: TrayIcon | undefined;

  constructor(
    private readonly state: () => TrayState,
    private readonly actions: TrayActions,
    iconFile: (icon: TrayIcon) => string,
  ) {
    this.#icons = {
      running: nativeImage.createFromPath(iconFile('running')),
      paused: nativeImage.createFromPath(iconFile('paused')),
      pending: nativeImage.createFromPath(iconFile('pending')),
    };
    this.#tray = new Tray(this.#icons.running);
    this.rebuild();
  }

  /** Something changed: rebuild soon (bursts coalesce). */
  refresh = (): void => {
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      this.rebuild();
    }, REBUILD_DELAY_MS);
  };

  rebuild(): void {
    if (this.#tray.isDestroyed()) return;
    const state = this.state();
    const icon = trayIcon(state);
    if (icon !== this.#shown) this.#tray.setImage(this.#icons[icon]);
    this.#shown = icon;
    this.#tray.setToolTip(trayTooltip(state));
    // After a change the menu shows the new state at once, not after the event round trip.
    const thenRebuild =
      <A extends unknown[]>(run: (...args: A) => void) =>
      (...args: A) => {
        run(...args);
        this.rebuild();
      };
    const { setToolEnabled, setPaused, setClientTools, setStartAtLogin } = this.actions;
    const actions: TrayActions = {
      ...this.actions,
      setToolEnabled: thenRebuild(setToolEnabled),
      setPaused: thenRebuild(setPaused),
      setClientTools: thenRebuild(setClientTools),
      setStartAtLogin: thenRebuild(setStartAtLogin),
    };
    this.#tray.setContextMenu(Menu.buildFromTemplate(trayMenu(state, actions)));
  }

  destroy(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (!this.#tray.isDestroyed()) this.#tray.destroy();
  }
}
