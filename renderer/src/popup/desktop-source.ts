import type { DesktopApi } from '../../../electron/ipc-contract';
import type { ApprovalSource } from './source';

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * The popup inside the desktop app: everything goes through the preload's `window.pincer`. The main process knows
 * which approval this window belongs to, so the page names none, and it has no session or token to fall back on.
 */
export function desktopSource(bridge: DesktopApi): ApprovalSource {
  return {
    mode: 'desktop',
    async load() {
      try {
        const approval = await bridge.approval();
        return approval && approval.status === 'pending' ? { kind: 'pending', approval } : { kind: 'gone' };
      } catch (error) {
        return { kind: 'failed', message: `The desktop app could not give this approval: ${describe(error)}` };
      }
    },
    async decide(answer) {
      try {
        const result = await bridge.decide(answer);
        return result.ok ? { kind: 'decided', status: result.status } : { kind: 'refused', message: result.error };
      } catch (error) {
        return { kind: 'refused', message: `The desktop app did not take the answer: ${describe(error)}` };
      }
    },
    close: () => bridge.close(),
  };
}
