/**
 * The one IPC contract between the desktop shell's main process and its pages (types only: no values, so the
 * sandboxed preload and the renderer can both import it with `import type`).
 *
 * Only approval popups talk over IPC. A popup never holds a token or a session: it asks the main process for the
 * approval its window was opened for and sends the owner's answer back; the main process knows which approval
 * belongs to which window, so a page can neither read nor decide any other.
 */

/** The rule scopes an "always allow" can take (the gateway's RULE_SCOPES). */
export type ApprovalScope = 'exact' | 'tool' | 'prefix' | 'folder' | 'host';

/** A pending approval as the popup shows it: the same JSON as the gateway's `GET /approvals/{id}`. */
export interface ApprovalView {
  id: string;
  /** A call waiting to run, an imported MCP server's question (elicitation), or its request to use the model. */
  kind?: 'call' | 'elicitation' | 'sampling';
  call_id: string;
  tool: string;
  client: string;
  arguments: unknown;
  risk: string;
  rule: string;
  reason: string;
  status: 'pending' | 'allowed' | 'denied' | 'accepted' | 'declined' | 'expired' | 'cancelled';
  decision: 'allow_once' | 'allow_always' | 'deny' | 'accept' | 'decline' | null;
  message: string | null;
  granted_rule: string | null;
  created_at: string;
  expires_at: string;
  decided_at: string | null;
  decided_by: string | null;
  scopes: { scope: ApprovalScope; pattern: string | null; label: string }[];
  sandbox?: string | null;
  /** Where the tool comes from: `builtin`, `plugin:<name>`, `mcp:<server>`. */
  source?: string;
  /** Files the call runs that a client wrote recently (a Makefile for `make`), newest first. */
  provenance?: ProvenanceView[];
  /** The imported MCP server that asks (elicitation, sampling). */
  server?: string | null;
  /** Elicitation: the flat JSON Schema of the form the owner fills in (an ElicitationSchema, checked by the gateway). */
  requested_schema?: Record<string, unknown>;
  /** Sampling: what the server wants the model to answer. */
  prompt?: unknown;
}

/** An MCP elicitation's form: flat, one property per field (string, number, integer, boolean, enum). */
export interface ElicitationSchema {
  type: 'object';
  properties: Record<string, ElicitationField>;
  required?: string[];
}

export interface ElicitationField {
  type: 'string' | 'number' | 'integer' | 'boolean' | 'array';
  title?: string;
  description?: string;
  default?: unknown;
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  enum?: unknown[];
  enumNames?: string[];
  oneOf?: { const: unknown; title?: string }[];
  items?: { type?: string; enum?: unknown[]; anyOf?: { const: unknown; title?: string }[] };
  minItems?: number;
  maxItems?: number;
}

/** A file a command runs and the client call that wrote it. */
export interface ProvenanceView {
  /** The file (absolute). */
  path: string;
  /** The command that runs or reads it (`make`, `npm test`). */
  by: string;
  client: string;
  tool: string;
  call_id: string;
  /** When it was written (ISO 8601). */
  at: string;
  /** The folder the call copied files into, when it could not tell which. */
  folder?: string;
}

/** The owner's answer, as `POST /approvals/{id}` takes it (the main process validates it with the same parser). */
export type DecisionPayload =
  | { decision: 'allow_once' }
  | { decision: 'allow_always'; scope: ApprovalScope; pattern?: string }
  | { decision: 'deny'; message?: string }
  | { decision: 'accept'; content: Record<string, unknown> }
  | { decision: 'decline' };

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
