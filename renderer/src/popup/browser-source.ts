import { api, ApiError, describeError } from '../lib/api';
import type { Approval, ApprovalRecord, SessionInfo } from '../lib/types';
import type { ApprovalSource, Lookup } from './source';

const NOT_WAITING = 'That call is no longer waiting: it was answered elsewhere, it expired, or its caller stopped waiting.';

/** The owner session is missing or over (the same test as the dashboard's api client). */
const sessionLost = (error: unknown) =>
  error instanceof ApiError && (error.status === 401 || (error.status === 403 && error.error.name === 'FORBIDDEN'));

/**
 * The popup in a browser: the dashboard's api client, with the owner session cookie. The session is asked for first
 * (`GET /session` needs nothing), so a browser without one is told to sign in rather than shown a refusal.
 */
export function browserSource(id: string | null): ApprovalSource {
  let owner = false;
  let loginCommand: string | undefined;
  return {
    mode: 'browser',
    async load(): Promise<Lookup> {
      try {
        if (!owner) ({ owner, login_command: loginCommand } = await api<SessionInfo>('GET', '/session'));
        if (!owner) return { kind: 'signed-out', loginCommand };
        if (id === null) return { kind: 'failed', message: 'This address names no approval: open a popup from the dashboard or the desktop app.' };
        const approval = await api<Approval>('GET', `/approvals/${encodeURIComponent(id)}`);
        return approval.status === 'pending' ? { kind: 'pending', approval } : { kind: 'gone' };
      } catch (error) {
        if (error instanceof ApiError && error.status === 404) return { kind: 'gone' };
        if (sessionLost(error)) {
          owner = false;
          return { kind: 'signed-out', loginCommand };
        }
        return { kind: 'failed', message: describeError(error) };
      }
    },
    async decide(answer) {
      if (id === null) return { kind: 'gone', message: NOT_WAITING };
      try {
        const ended = await api<ApprovalRecord>('POST', `/approvals/${encodeURIComponent(id)}`, answer);
        const status = ended.status === 'allowed' || ended.status === 'accepted' || ended.status === 'declined' ? ended.status : 'denied';
        return { kind: 'decided', status };
      } catch (error) {
        if (error instanceof ApiError && error.status === 404) return { kind: 'gone', message: NOT_WAITING };
        if (sessionLost(error)) {
          owner = false;
          return { kind: 'signed-out', loginCommand };
        }
        return { kind: 'refused', message: describeError(error) };
      }
    },
  };
}

/** The approval id in the page's address: `/popup/<id>` as the gateway serves it, or `?id=` (the dev server). */
export function approvalIdFrom(location: { pathname: string; search: string }): string | null {
  const match = /^\/popup\/([^/]+)\/?$/.exec(location.pathname);
  if (match) {
    try {
      return decodeURIComponent(match[1]!);
    } catch {
      return null;
    }
  }
  const id = new URLSearchParams(location.search).get('id');
  return id === null || id === '' ? null : id;
}
