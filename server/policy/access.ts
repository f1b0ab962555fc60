import { GatewayError, refuse } from '../errors.js';
import type { Announcer } from '../events/bus.js';
import type { ClientProfile, Store } from '../store/index.js';
import { SEARCH_TOOLS } from '../tools/builtin/search-tools.js';
import type { RegisteredTool, ToolRegistry } from '../tools/registry.js';

const PAUSED = 'paused';

/**
 * The `tools` event's reason for a change to one client's tool set (a set, a budget, a token issued or revoked).
 * The event streams read the client back from it: such an event reaches only the owner and that client.
 */
export const clientToolsReason = (client: string): string => `client:${client}`;

/** The client a `tools` event is about, or undefined when it is about every caller's tools. */
export function clientOfToolsReason(reason: string): string | undefined {
  return reason.startsWith('client:') ? reason.slice('client:'.length) : undefined;
}

/** How long a tool search_tools found stays in its client's lists, and how many are kept per client. */
const FOUND_TTL_MS = 60 * 60_000;
const FOUND_MAX = 64;

/** What a caller's tool lists carry: the listed tools, the rest of its set (Anthropic's deferred tools), and why. */
export interface ListedTools {
  tools: RegisteredTool[];
  /** Tools of the caller's set left out of the list by its budget: callable by name, found with search_tools. */
  deferred: RegisteredTool[];
  warning?: string;
}

/**
 * Who may use which tool: the owner's pause switch, and each client's own subset of tools (a profile), with a
 * budget on how many tools its lists carry (OpenAI accepts at most 128, some editors send only 40, a small model
 * loses accuracy with every tool past a dozen). A client over its budget is listed its pinned tools and
 * `search_tools`, plus what search_tools found for it; it may still call any tool of its set by name.
 */
export class ClientAccess {
  #paused: boolean;
  #profiles: Map<string, ClientProfile>;
  /** Per client: the tools search_tools found for it, and until when they stay listed. */
  readonly #found = new Map<string, Map<string, number>>();

  constructor(
    private readonly store: Store,
    /** Where every change to what a client is listed (its profile, its found tools) is announced, so lists re-read at once. */
    private readonly events?: Announcer<'tools'>,
  ) {
    this.#paused = store.settings.get(PAUSED) === 'true';
    this.#profiles = new Map(store.profiles.all().map((p) => [p.name, p]));
  }

  #announce(profile: ClientProfile): void {
    this.events?.emit('tools', { reason: clientToolsReason(profile.name), names: profile.tools ?? [] });
  }

  get paused(): boolean {
    return this.#paused;
  }

  setPaused(paused: boolean): void {
    this.store.settings.set(PAUSED, String(paused));
    this.#paused = paused;
  }

  profile(client: string): ClientProfile {
    return this.#profiles.get(client) ?? { name: client, tools: null, max_tools: null, pinned: [] };
  }

  /** Whether the owner has chosen a tool set for this client (an explicit "every tool" included). */
  hasProfile(client: string): boolean {
    return this.#profiles.has(client);
  }

  setProfile(profile: ClientProfile): void {
    this.store.profiles.set(profile);
    this.#profiles.set(profile.name, profile);
    this.#announce(profile);
  }

  /** The client's tool set (null: every enabled tool); its budget is kept. */
  setTools(client: string, tools: string[] | null): ClientProfile {
    const profile = { ...this.profile(client), tools };
    this.setProfile(profile);
    return profile;
  }

  /** The client's budget (null: no limit) and pinned tools; its tool set is kept. */
  setBudget(client: string, maxTools: number | null, pinned: string[]): ClientProfile {
    const profile = { ...this.profile(client), max_tools: maxTools, pinned };
    this.setProfile(profile);
    return profile;
  }

  /** Why this client may not call this tool right now, or undefined when it may. */
  refusal(client: string, tool: string, isOwner: boolean): GatewayError | undefined {
    if (this.#paused) {
      return refuse.toolsPaused();
    }
    // search_tools reveals only the caller's own tools: a client on a budget needs it whatever its set.
    if (isOwner || tool === SEARCH_TOOLS) return undefined;
    const allowed = this.profile(client).tools;
    if (allowed && !allowed.includes(tool)) {
      return new GatewayError('TOOL_DISABLED', `The tool "${tool}" is not enabled for ${client}; use another tool or ask the owner to enable it for this client.`);
    }
    return undefined;
  }

  /** The enabled tools this caller may call: its whole set, whatever its budget lists. */
  usable(registry: ToolRegistry, client: string, isOwner: boolean): RegisteredTool[] {
    const enabled = registry.list().filter((t) => registry.isEnabled(t.definition.name));
    if (isOwner) return enabled;
    const subset = this.profile(client).tools;
    return subset ? enabled.filter((t) => subset.includes(t.definition.name)) : enabled;
  }

  /** The tools a caller's lists carry: its whole set within its budget, else pinned + search_tools + found ones. */
  visible(registry: ToolRegistry, client: string, isOwner: boolean, now = Date.now()): ListedTools {
    const mine = this.usable(registry, client, isOwner);
    const { max_tools: budget, pinned } = isOwner ? { max_tools: null, pinned: [] } : this.profile(client);
    if (budget === null || mine.length <= budget) return { tools: mine, deferred: [] };
    const byName = new Map(mine.map((t) => [t.definition.name, t]));
    // A client on a budget always has search_tools (enabled), whether or not its set names it.
    const search = registry.get(SEARCH_TOOLS);
    if (search && registry.isEnabled(SEARCH_TOOLS) && !byName.has(SEARCH_TOOLS)) {
      byName.set(SEARCH_TOOLS, search);
      mine.unshift(search);
    }
    const listed = new Set<RegisteredTool>();
    for (const name of [SEARCH_TOOLS, ...pinned]) {
      const tool = byName.get(name);
      if (tool && listed.size < budget) listed.add(tool);
    }
    // What search_tools found grows the list beyond the budget: the client asked for those tools.
    for (const name of this.#foundFor(client, now)) {
      const tool = byName.get(name);
      if (tool) listed.add(tool);
    }
    const tools = mine.filter((t) => listed.has(t));
    return {
      tools,
      deferred: mine.filter((t) => !listed.has(t)),
      warning: `${client} may use ${mine.length} tools; its budget lists ${budget}: its pinned tools and search_tools, plus the tools search_tools found for it. Every tool of its set can be called by name; search_tools finds them.`,
    };
  }

  /** Tools search_tools found for a client: listed for it for the next hour. */
  noteFound(client: string, names: readonly string[], now = Date.now()): void {
    if (names.length === 0) return;
    const found = this.#found.get(client) ?? new Map<string, number>();
    const before = new Set(this.#foundFor(client, now));
    // Newest last, and the best of one search last of all: whoever prefers the latest finds takes the best first.
    for (const name of [...names].reverse()) {
      found.delete(name);
      found.set(name, now + FOUND_TTL_MS);
    }
    while (found.size > FOUND_MAX) found.delete(found.keys().next().value!);
    this.#found.set(client, found);
    // Only a client on a budget sees its list change.
    if (this.profile(client).max_tools !== null && names.some((name) => !before.has(name))) this.#announce(this.profile(client));
  }

  /** The tools found for a client that are still listed, the latest and best found last. */
  foundFor(client: string, now = Date.now()): string[] {
    return this.#foundFor(client, now);
  }

  #foundFor(client: string, now: number): string[] {
    const found = this.#found.get(client);
    if (!found) return [];
    for (const [name, until] of found) if (until <= now) found.delete(name);
    return [...found.keys()];
  }
}
