import { ipcMain, type IpcMainEvent, type IpcMainInvokeEvent, type WebContents } from 'electron';
import { GatewayError, parseOwnerDecision, type OwnerDecision, type PendingApproval } from '../../server/index.js';
import type { ApprovalView, DecisionPayload, InvokeChannel, InvokeChannels, SendChannel } from '../ipc-contract.js';
import { originOf } from './windows.js';

// The contract's shapes are the gateway's: checked here, at compile time, so the two cannot drift apart.
type Assignable<From extends To, To> = [From, To];
export type ContractMatchesGateway = [Assignable<PendingApproval, ApprovalView>, Assignable<DecisionPayload, OwnerDecision>];

/** What the IPC handlers act on. */
export interface IpcDeps {
  /** The gateway's origin: a message counts only from a page of it. */
  origin: string;
  /** The approval a popup's page may read and decide (undefined: not a popup). */
  approvalFor(contents: WebContents): string | undefined;
  closePopup(contents: WebContents): void;
  approval(id: string): PendingApproval | undefined;
  decide(id: string, answer: OwnerDecision): { status: string };
  log(line: string): void;
}

/**
 * The only user of ipcMain. Security: every message must come from the main frame of a popup window this shell
 * opened, showing the gateway's popup page for that window's own approval; anything else is ignored (and logged).
 * The approval a message acts on comes from the window, never from the payload, so a page can neither read nor
 * answer another approval. Payloads are validated with the gateway's own parser before anything happens.
 */
export function registerIpc(deps: IpcDeps): () => void {
  const trusted = (event: IpcMainEvent | IpcMainInvokeEvent): string | undefined => {
    const id = deps.approvalFor(event.sender);
    const frame = event.senderFrame;
    const ok =
      id !== undefined &&
      frame !== null &&
      frame.parent === null &&
      originOf(frame.url) === deps.origin &&
      new URL(frame.url).pathname === `/popup/${encodeURIComponent(id)}`;
    if (!ok) deps.log(`pincer: ignored an IPC message from a page that is not an approval popup (${frame?.url ?? 'no frame'})`);
    return ok ? id : undefined;
  };

  handle('popup:approval', (event) => {
    const id = trusted(event);
    return id === undefined ? null : (deps.approval(id) ?? null);
  });

  handle('popup:decide', (event, ...args) => {
    const id = trusted(event);
    if (id === undefined) return { ok: false, error: 'Only an approval popup can answer its approval.' };
    if (args.length !== 1) return { ok: false, error: 'Send exactly one answer.' };
    try {
      const { status } = deps.decide(id, parseOwnerDecision(args[0]));
      return status === 'allowed' || status === 'denied' || status === 'accepted' || status === 'declined' ? { ok: true, status } : { ok: false, error: `The approval ended ${status}.` };
    } catch (error) {
      // A refusal the owner can read (already answered, expired, invalid answer); nothing else leaves the process.
      return { ok: false, error: error instanceof GatewayError ? error.message : 'The answer could not be recorded.' };
    }
  });

  on('popup:close', (event) => {
    if (trusted(event) !== undefined) deps.closePopup(event.sender);
  });

  return () => {
    for (const channel of INVOKE_CHANNELS) ipcMain.removeHandler(channel);
    for (const channel of SEND_CHANNELS) ipcMain.removeAllListeners(channel);
  };
}

const INVOKE_CHANNELS: InvokeChannel[] = ['popup:approval', 'popup:decide'];
const SEND_CHANNELS: SendChannel[] = ['popup:close'];

/** Payloads arrive as `unknown[]`: whatever a page sends is checked before use, whatever the contract says. */
function handle<C extends InvokeChannel>(
  channel: C,
  handler: (event: IpcMainInvokeEvent, ...args: unknown[]) => InvokeChannels[C]['response'],
): void {
  ipcMain.handle(channel, handler);
}

function on<C extends SendChannel>(channel: C, listener: (event: IpcMainEvent, ...args: unknown[]) => void): void {
  ipcMain.on(channel, listener);
}
