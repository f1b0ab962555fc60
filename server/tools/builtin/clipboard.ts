import { spawn } from 'node:child_process';
import type { DesktopBridge } from '../../desktop.js';
import { ToolError } from '../../errors.js';
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

/** Runs a clipboard program with a time limit; stdin for writes, stdout for reads. */
function runClipboard(
  [command, args]: [string, string[]],
  input: string | undefined,
  signal: AbortSignal,
  env: NodeJS.ProcessEnv | undefined,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'], signal, timeout: 5000, env });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      if (out.length > MAX_CLIPBOARD_BYTES) child.kill('SIGKILL');
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.on('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'ENOENT'
          ? new ToolError('CLIPBOARD_UNAVAILABLE', `The clipboard program "${command}" is not installed on this machine.`)
          : new ToolError('CLIPBOARD_FAILED', `The clipboard could not be used: ${error.message}`),
      ),
    );
    child.on('close', (code) => {
      if (code === 0) resolve(out);
      else reject(new ToolError('CLIPBOARD_FAILED', `"${command}" failed (exit ${code})${err.trim() ? `: ${err.trim().slice(0, 200)}` : ''}.`));
    });
    child.stdin.end(input ?? '');
  });
}

export function createClipboardTool(options: { desktop: DesktopBridge | undefined; env?: NodeJS.ProcessEnv }) {
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
        const text = options.desktop ? await options.desktop.readClipboard() : await runClipboard(system!.read, undefined, ctx.signal, options.env);
        return { text };
      }
      const text = args.text!;
      if (options.desktop) await options.desktop.writeClipboard(text);
      else await runClipboard(system!.write, text, ctx.signal, options.env);
      return { written: text.length };
    },
  });
}
