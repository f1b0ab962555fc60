/**
 * The one IPC contract between the desktop shell's main process and its pages (types only: no values, so the
 * sandboxed preload and the renderer can both import it with `import type`). What an approval looks like is the
 * gateway's wire contract (server/contract/), which this file takes as types.
 *
 * Only approval popups talk over IPC. A popup never holds a token or a session: it asks the main process for the
 * approval its window was opened for and sends the owner's answer back; the main process knows which approval
 * belongs to which window, so a page can neither read nor decide any other.
 */

import type { Approval, ApprovalAnswer, Provenance } from '../server/contract/approvals.js';
import type { RuleScope } from '../server/contract/rules.js';

/** The rule scopes an "always allow" can take. */
export type ApprovalScope = RuleScope;

/** A pending approval as the popup shows it: the gateway's wire contract, the same JSON as `GET /approvals/{id}`. */
export type ApprovalView = Approval;

/** A file a command runs and the client call that wrote it. */
export type ProvenanceView = Provenance;

/** The owner's answer, as `POST /approvals/{id}` takes it (the main process validates it with the same parser). */
export type DecisionPayload = ApprovalAnswer;

/** What a decision came to; a refusal names why (already answered, expired, invalid). */
export type DecisionResult = { ok: true; status: 'allowed' | 'denied' | 'accepted' | 'declined' } | { ok: false; error: string };

/** Request/response channels (`ipcRenderer.invoke` → `ipcMain.handle`). */
export interface InvokeChannels {
  /** The approval this popup window shows; null once it was answered, expired or withdrawn. */
  'popup:approval': { request: []; response: ApprovalView | null };
  'popup:decide': { request: [answer: DecisionPayload]; response: DecisionResult };
}

/** One-way channels from a page to the main process (`ipcRenderer.send` → `ipcMain.on`). */
export interface SendChannels {
  /** The popup is done (answered, or the owner pressed Escape): close its window. */
  'popup:close': [];
}

export type InvokeChannel = keyof InvokeChannels;
export type SendChannel = keyof SendChannels;

/** What the preload exposes to a page as `window.pincer`: a few named methods, never raw ipcRenderer. */
export interface DesktopApi {
  approval(): Promise<ApprovalView | null>;
  decide(answer: DecisionPayload): Promise<DecisionResult>;
  close(): void;
}

/** The global name the preload exposes the API under. */
export type DesktopApiKey = 'pincer';
