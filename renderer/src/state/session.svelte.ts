import { api, ApiError, onSessionLost } from '../lib/api';
import type { SessionInfo } from '../lib/types';

export type SessionState = 'checking' | 'owner' | 'guest' | 'unreachable';

/** Whether this browser holds an owner session (set by a one-time login link; the cookie is HttpOnly). */
export class Session {
  state = $state<SessionState>('checking');
  version = $state('');
  /** The gateway's own command for a login link (absolute paths), when it names one. */
  loginCommand = $state<string | undefined>(undefined);

  constructor() {
    onSessionLost(() => {
      this.state = 'guest';
    });
  }

  async check(): Promise<void> {
    try {
      const answer = await api<SessionInfo>('GET', '/session');
      this.version = answer.version;
      this.loginCommand = answer.login_command;
      this.state = answer.owner ? 'owner' : 'guest';
    } catch (error) {
      this.state = error instanceof ApiError && error.status === 0 ? 'unreachable' : 'guest';
    }
  }

  /** Ends the owner session; when the gateway cannot be asked, the page says what it then knows. */
  async logout(): Promise<void> {
    try {
      await api('POST', '/auth/logout');
      this.state = 'guest';
    } catch {
      await this.check();
    }
  }
}
