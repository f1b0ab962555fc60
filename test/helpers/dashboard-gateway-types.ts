/** One request to the model: the messages of the turn so far. */
export interface LlmRequest {
  messages: { role: string; content?: unknown; tool_call_id?: string; tool_name?: string }[];
}

/** The model's answer: text (in the pieces it streams in) and tool calls; or an HTTP error; `hold` delays it. */
export interface LlmReply {
  content?: string | string[];
  tool_calls?: { name: string; arguments?: Record<string, unknown> }[];
  error?: { status: number; message: string };
  hold?: Promise<void>;
}

export type LlmScript = (request: LlmRequest) => LlmReply | Promise<LlmReply>;

/** A running gateway as the dashboard's state tests drive it (see dashboard-gateway.ts). Types only, no imports. */
export interface DashboardGateway {
  readonly url: string;
  readonly port: number;
  /** The gateway's only root. */
  readonly workspace: string;
  readonly dataDir: string;
  /** The default client's token. */
  readonly token: string;
  /** `name=value` of the owner's session cookie, from a real one-time login link. */
  readonly ownerCookie: string;
  /** A request as the default client (its token); a `json` body is sent as JSON. */
  api(path: string, init?: RequestInit & { json?: unknown }): Promise<Response>;
  /** A request as the signed-in owner from elsewhere (another window, the CLI's HTTP calls). */
  asOwner(path: string, init?: { method?: string; json?: unknown }): Promise<Response>;
  /**
   * Writes finished calls into the history as past calls (a `calculate` that succeeded, unless the fields say
   * otherwise): a long history without making each call.
   */
  saveCalls(calls: ({ id: string; started_at: string } & Record<string, unknown>)[]): void;
  /** How many GET /events streams are open. */
  viewers(): number;
  /** Stops the gateway: its event streams drop and requests find nobody answering. */
  stop(): Promise<void>;
  /** Starts it again on the same port and data directory. */
  start(): Promise<void>;
  close(): Promise<void>;
}
