/** Clients on the wire: `GET /clients`, their tokens, tool sets, budgets and scopes (owner only). */

/** Which memories a client sees: every one, or only those it wrote. */
export type MemoryScope = 'all' | 'own';
/** Which calls a client reads in the history (GET /calls, the export, /events, /stats): every one, or only its own. */
export type HistoryScope = 'all' | 'own';

/** A named client's token as listed: never the token itself. */
export interface ClientToken {
  name: string;
  /** The last characters of the token, so a person can tell tokens apart without seeing them. */
  token_hint: string;
  created_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
  memories: MemoryScope;
  history: HistoryScope;
}

/** One client as `GET /clients` lists it: its tool set, its budget, its scopes and its token. */
export interface ClientProfile {
  name: string;
  /** The tools it may use; null: every enabled tool. */
  tools: string[] | null;
  /** Its budget: at most this many tools in its lists (search_tools counted); null for no limit. */
  max_tools: number | null;
  /** Tools always in its lists while it is over its budget. */
  pinned: string[];
  /** Whether it sees only the memories it wrote, or every one (the default client: always all). */
  memories: MemoryScope;
  /** Whether it reads only its own calls in the history, or every client's (the default client: always all). */
  history: HistoryScope;
  /** null for the default client, whose token lives in the data directory. */
  token: ClientToken | null;
}

/** `POST /clients`: a token just issued, shown this once; afterwards only its hint is ever seen. */
export interface IssuedToken {
  name: string;
  token: string;
  created_at: string;
  /**
   * When the name was revoked before: the name its earlier holder's calls, memories and conversations are now kept
   * under (`alice~revoked-<time>`), which the new token does not read.
   */
  archived_as?: string;
}

/** `GET /clients/default/token`: the default client's token, for the owner to copy. */
export interface DefaultToken {
  token: string;
}

/** `GET /session`: whether this browser holds an owner session, and the gateway's version. */
export interface SessionInfo {
  owner: boolean;
  version: string;
  /** What to type in a terminal on the gateway's machine to get a login link (absolute paths: it works in any folder). */
  login_command?: string;
}

/** `PUT /clients/{name}/tools`: the client's tool set as saved. */
export type ClientToolSet = Pick<ClientProfile, 'name' | 'tools'>;
/** `PUT /clients/{name}/budget`: the client's budget as saved. */
export type ClientBudget = Pick<ClientProfile, 'name' | 'max_tools' | 'pinned'>;
/** `PUT /clients/{name}/memories`. */
export type ClientMemoryScope = Pick<ClientProfile, 'name' | 'memories'>;
/** `PUT /clients/{name}/history`. */
export type ClientHistoryScope = Pick<ClientProfile, 'name' | 'history'>;

/** `GET /clients`. */
export interface ClientList {
  clients: ClientProfile[];
}
