import type { Approval, ApprovalAnswer } from '../lib/types';

/** What the popup learned about the approval it was opened for. */
export type Lookup =
  | { kind: 'pending'; approval: Approval }
  /** Answered, expired, withdrawn by its caller, or never known: there is nothing left to decide. */
  | { kind: 'gone' }
  /** A browser without an owner session (the desktop app's popup never gets this); the gateway's login command. */
  | { kind: 'signed-out'; loginCommand?: string | undefined }
  | { kind: 'failed'; message: string };

/** What became of an answer. */
export type Sent =
  | { kind: 'decided'; status: 'allowed' | 'denied' | 'accepted' | 'declined' }
  /** Not taken because the approval no longer waits. */
  | { kind: 'gone'; message: string }
  | { kind: 'signed-out'; loginCommand?: string | undefined }
  /** Not taken for another reason (an invalid scope, the gateway not answering): the approval may still wait. */
  | { kind: 'refused'; message: string };

/**
 * Where the popup gets its approval and sends the answer: the desktop app's IPC bridge, or the gateway's HTTP API
 * with the browser's owner session. The page holds no token either way.
 */
export interface ApprovalSource {
  readonly mode: 'desktop' | 'browser';
  load(): Promise<Lookup>;
  decide(answer: ApprovalAnswer): Promise<Sent>;
  /** Closes the popup window; only the desktop app can (a browser window is the person's to close). */
  readonly close?: () => void;
}
