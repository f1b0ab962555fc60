import type { DesktopBridge } from '../../desktop.js';
import { ToolError } from '../../errors.js';
import { defaultRunner, DEFAULT_INHERITED, DESKTOP_SESSION, scrubbedEnvironment, type ProcessRunner } from '../../process/index.js';
import { defineTool } from '../types.js';

interface ClipboardArgs {
  action: 'read' | 'write';
  text?: string;
}

interface ClipboardCommand {
  read: [string, string[]];
  write: [string, string[]];
}

const MAX_CLIPBOARD_BYTES = 1024 * 1024;

/** The system's clipboard programs, in the order a desktop session would have them. */
export function systemClipboard(env: NodeJS.ProcessEnv = process.env, platform = process.platform): ClipboardCommand | undefined {
  if (platform === 'darwin') return { read: ['pbpaste', []], write: ['pbcopy', []] };
  if (env.WAYLAND_DISPLAY) return { read: ['wl-paste', ['--no-newline']], write: ['wl-copy', []] };
  if (env.DISPLAY) return { read: ['xclip', ['-selection', 'clipboard', '-o']], write: ['xclip', ['-selection', 'clipboard', '-i']] };
  return undefined;
}

const CLIPBOARD_TIMEOUT_MS = 5000;

/** Runs a clipboard program with a time limit; stdin for writes, stdout for reads. */
async function runClipboard(
  runner: ProcessRunner,
  [command, args]: [string, string[]],
  input: string | undefined,
  signal: AbortSignal,
  source: NodeJS.ProcessEnv | undefined,
): Promise<string> {
  const run = await runner
    .run({
      kind: 'clipboard',
      command,
      args,
      // Security: the allowlist plus what reaches the desktop session, and nothing else of the gateway's environment.
      env: scrubbedEnvironment({ inherit: [...DEFAULT_INHERITED, ...DESKTOP_SESSION], ...(source && { source }) }),
      stdin: input ?? '',
      timeoutMs: CLIPBOARD_TIMEOUT_MS,
      signal,
      maxOutputBytes: MAX_CLIPBOARD_BYTES,
      keep: 'start',
    })
    .catch((error: NodeJS.ErrnoException) => {
      throw error.code === 'ENOENT'
        ? new ToolError('CLIPBOARD_UNAVAILABLE', `The clipboard program "${command}" is not installed on this machine.`)
        : new ToolError('CLIPBOARD_FAILED', `The clipboard could not be used: ${error.message}`);
    });
  if (run.cancelled) throw new ToolError('CALL_CANCELLED', 'The clipboard call was cancelled.');
  if (run.timedOut) throw new ToolError('CLIPBOARD_FAILED', `"${command}" did not answer within ${CLIPBOARD_TIMEOUT_MS / 1000} s.`);
  if (run.truncated) throw new ToolError('CLIPBOARD_FAILED', `The clipboard holds more than ${MAX_CLIPBOARD_BYTES} bytes of text.`);
  if (run.exitCode !== 0) {
    const err = run.stderr.trim();
    throw new ToolError('CLIPBOARD_FAILED', `"${command}" failed (${run.signal ?? `exit ${run.exitCode}`})${err ? `: ${err.slice(0, 200)}` : ''}.`);
  }
  return run.stdout;
}

export function createClipboardTool(options: { desktop: DesktopBridge | undefined; env?: NodeJS.ProcessEnv; runner?: ProcessRunner }) {
  const runner = options.runner ?? defaultRunner();
  return defineTool<ClipboardArgs, { text: string } | { written: number }>({
    name: 'clipboard',
    description:
      'Read or write the text clipboard of the person at this machine. Writing (e.g. to hand them a command or a snippet) runs at once; ' +
      'reading needs their approval, since the clipboard often holds passwords.',
    parameters: {
      type: 'object',
      properties: {
        action: { type: 'string', enum: ['read', 'write'], description: '"read" returns the clipboard text; "write" replaces it with `text`.' },
        text: { type: 'string', maxLength: MAX_CLIPBOARD_BYTES, description: 'The text to put on the clipboard (for "write").' },
      },
      required: ['action'],
      additionalProperties: false,
    },
    category: 'desktop',
    risk: 'sensitive',
    annotations: { title: 'Clipboard', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    timeoutMs: 10_000,
    async handler(args, ctx) {
      if (args.action === 'write' && typeof args.text !== 'string') {
        throw new ToolError('INVALID_ARGUMENTS', 'Give the text to write: {"action": "write", "text": "…"}.');
      }
      const system = options.desktop ? undefined : systemClipboard(options.env);
      if (!options.desktop && !system) {
        throw new ToolError(
          'CLIPBOARD_UNAVAILABLE',
          'No clipboard is available: Pincer runs without a desktop session here (no display). The person can copy text from the activity log instead.',
        );
      }
      if (args.action === 'read') {
        const text = options.desktop ? await options.desktop.readClipboard() : await runClipboard(runner, system!.read, undefined, ctx.signal, options.env);
        return { text };
      }
      const text = args.text!;
      if (options.desktop) await options.desktop.writeClipboard(text);
      else await runClipboard(runner, system!.write, text, ctx.signal, options.env);
      return { written: text.length };
    },
  });
}
