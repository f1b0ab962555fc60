import type { ChildHandle, ProcessRunner, SandboxWrapper } from '../process/index.js';
import type { Sandbox } from '../process/sandbox.js';
import { PluginChannel, type ChannelDeps } from './channel.js';
import { sandboxScope, spawnPlugin, type HostLaunch } from './launch.js';
import type { DeclaredTool } from './protocol.js';

// Importers of the host take the child script's path from here.
export { childScript } from './launch.js';

const RESTART_DELAYS_MS = [1_000, 2_000, 5_000, 10_000, 30_000];
/** Up this long without a crash, a plugin's next crash counts as its first again. */
const HEALTHY_AFTER_MS = 60_000;

export interface HostDeps {
  runner: ProcessRunner;
  /** The OS sandbox the process runs in, where there is one. */
  sandbox: Sandbox;
  /** Outgoing HTTP for the plugin, with the URL policy and its hosts applied; throws with a reason. */
  fetch: ChannelDeps['fetch'];
  log: ChannelDeps['log'];
  /** The process ended on its own while serving (crash, exit): the host restarts it after `delayMs`. */
  onCrash(reason: string, delayMs: number): void;
  /** It is back after a crash. */
  onRestarted(): void;
  /**
   * Asked before a restart after a crash: why it must not start again (its files no longer hash as accepted), or
   * null. A refusal leaves the process down; the caller decides what becomes of the plugin.
   */
  beforeRestart?(): string | null;
}

/**
 * One plugin's process and its supervision: started inside the OS sandbox (where there is one) and under Node's
 * permission model (launch.ts), loaded, restarted with backoff when it crashes, killed when a cancelled call does not
 * stop or it floods its pipe; what goes over its pipes is the channel's (channel.ts). Nothing a plugin does can block
 * the gateway: every wait has a bound, and the process is the plugin's alone.
 */
export class PluginHost {
  readonly #channel: PluginChannel;
  #crashes = 0;
  /** Loaded at least once: a process that dies before that failed to load, it did not crash. */
  #ready = false;
  #startedAt = 0;
  #stopped = false;
  #restartTimer: NodeJS.Timeout | undefined;
  readonly #sandbox: SandboxWrapper | undefined;

  constructor(
    private readonly launch: HostLaunch,
    private readonly deps: HostDeps,
  ) {
    this.#sandbox = deps.sandbox.wrapper(sandboxScope(launch));
    this.#channel = new PluginChannel(launch.name, {
      fetch: (url, init) => deps.fetch(url, init),
      log: (level, message) => deps.log(level, message),
      ended: (child, reason, kill) => void this.#crashed(child, reason, kill),
    });
  }

  get running(): boolean {
    return this.#channel.child !== undefined;
  }

  /** Starts the process and loads the plugin; resolves with its tools, rejects with why it did not load. */
  async start(): Promise<DeclaredTool[]> {
    const child = await spawnPlugin(this.launch, this.deps.runner, this.#sandbox);
    this.#channel.attach(child);
    this.#startedAt = Date.now();
    const outcome = await this.#channel.load(this.launch);
    if (outcome.type === 'loaded') {
      this.#ready = true;
      return outcome.tools;
    }
    await this.#kill();
    throw new Error(outcome.type === 'load-failed' ? outcome.message : outcome.reason);
  }

  /** Runs one tool call; rejects at once when the signal fires, and kills the process if the plugin ignores it. */
  call(tool: string, args: unknown, context: { callId: string; client: string; signal: AbortSignal }): Promise<unknown> {
    return this.#channel.call(tool, args, context);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#restartTimer);
    await this.#kill();
    this.#channel.failAll('PLUGIN_UNAVAILABLE', `The plugin "${this.launch.name}" was stopped.`);
  }

  /** The process is gone (or must go): fail what it was doing, and bring it back after a pause that grows. */
  async #crashed(child: ChildHandle, reason: string, kill: boolean): Promise<void> {
    if (!this.#channel.lost(child, reason)) return;
    if (kill) await child.stop(0);
    this.#channel.failAll('PLUGIN_CRASHED', `The plugin "${this.launch.name}" stopped while running this call: ${reason}.`);
    if (this.#stopped || !this.#ready) return;
    if (Date.now() - this.#startedAt > HEALTHY_AFTER_MS) this.#crashes = 0;
    const delayMs = RESTART_DELAYS_MS[Math.min(this.#crashes, RESTART_DELAYS_MS.length - 1)]!;
    this.#crashes += 1;
    this.deps.onCrash(reason, delayMs);
    this.#restartTimer = setTimeout(() => this.#restart(), delayMs);
    this.#restartTimer.unref();
  }

  #restart(): void {
    if (this.#stopped) return;
    const refused = this.deps.beforeRestart?.() ?? null;
    if (refused) return this.deps.log('error', `not restarted: ${refused}`);
    this.start().then(
      () => this.deps.onRestarted(),
      (error: Error) => this.deps.log('error', `restart failed: ${error.message}`),
    );
  }

  async #kill(): Promise<void> {
    const child = this.#channel.detach();
    if (child) await child.stop(500);
  }
}
