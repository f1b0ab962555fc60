import { GatewayError } from '../errors.js';
import type { ClientProfile, Store } from '../store/index.js';
import type { RegisteredTool, ToolRegistry } from '../tools/registry.js';

const PAUSED = 'paused';

/**
 * Who may use which tool: the owner's pause switch, and each client's own subset of tools (a profile), with an
 * optional cap on how many tools its lists carry (OpenAI accepts at most 128; some editors send only 40).
 */
export class ClientAccess {
  #paused: boolean;
  #profiles: Map<string, ClientProfile>;

  constructor(
    private readonly store: Store,
    /** Told of every profile change, whoever made it (dashboard, CLI, tray), so lists re-read at once. */
    private readonly onProfileChanged: (profile: ClientProfile) => void = () => {},
  ) {
    this.#paused = store.settings.get(PAUSED) === 'true';
    this.#profiles = new Map(store.profiles.all().map((p) => [p.name, p]));
  }

  get paused(): boolean {
    return this.#paused;
  }

  setPaused(paused: boolean): void {
    this.store.settings.set(PAUSED, String(paused));
    this.#paused = paused;
  }

  profile(client: string): ClientProfile {
    return this.#profiles.get(client) ?? { name: client, tools: null, max_tools: null };
  }

  /** Whether the owner has chosen a tool set for this client (an explicit "every tool" included). */
  hasProfile(client: string): boolean {
    return this.#profiles.has(client);
  }

  setProfile(profile: ClientProfile): void {
    this.store.profiles.set(profile);
    this.#profiles.set(profile.name, profile);
    this.onProfileChanged(profile);
  }

  /** Why this client may not call this tool right now, or undefined when it may. */
  refusal(client: string, tool: string, isOwner: boolean): GatewayError | undefined {
    if (this.#paused) {
      return new GatewayError('TOOLS_PAUSED', 409, 'The owner has paused all tools; no tool runs until they resume them.');
    }
    if (isOwner) return undefined;
    const allowed = this.profile(client).tools;
    if (allowed && !allowed.includes(tool)) {
      return new GatewayError('TOOL_DISABLED', 409, `The tool "${tool}" is not enabled for ${client}; use another tool or ask the owner to enable it for this client.`);
    }
    return undefined;
  }

  /** The enabled tools a caller sees in its lists, capped by its profile, with a warning when the cap cut it. */
  visible(registry: ToolRegistry, client: string, isOwner: boolean): { tools: RegisteredTool[]; warning?: string } {
    const enabled = registry.list().filter((t) => registry.isEnabled(t.definition.name));
    if (isOwner) return { tools: enabled };
    const { tools: subset, max_tools } = this.profile(client);
    const mine = subset ? enabled.filter((t) => subset.includes(t.definition.name)) : enabled;
    if (max_tools !== null && mine.length > max_tools) {
      return {
        tools: mine.slice(0, max_tools),
        warning: `${client} may use ${mine.length} tools but its list is capped at ${max_tools}; ${mine.length - max_tools} are left out. Choose a smaller tool set for this client.`,
      };
    }
    return { tools: mine };
  }
}
