import { randomBytes } from 'node:crypto';
import { readSync } from 'node:fs';
import { constants } from 'node:os';
import { StringDecoder } from 'node:string_decoder';
import { spawn, type IPty } from 'node-pty';
import { ToolError } from '../../errors.js';
import { OutputBuffer } from './output-buffer.js';
import { ProcessTree } from './process-tree.js';

export interface PtyRunOptions {
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  maxOutputBytes: number;
  signal: AbortSignal;
  /** Live output, as it arrives (capped at `maxOutputBytes` too). */
  onOutput?: (chunk: string) => void;
  /** How long SIGTERM is given before SIGKILL. */
  killGraceMs?: number;
}

export interface PtyRunResult {
  /** Output as the terminal received it (escape sequences kept), line ends as `\n`. */
  output: string;
  exitCode: number | null;
  /** The signal that ended the shell, if one did. */
  signal?: string;
  timedOut: boolean;
  truncated: boolean;
  durationMs: number;
}

const SIGNAL_NAMES = new Map(Object.entries(constants.signals).map(([name, number]) => [number, name]));
/** After the tree was killed, give up waiting for the terminal's exit report after this long. */
const EXIT_WAIT_MS = 2_000;
const WATCH_INTERVAL_MS = 200;

/**
 * node-pty (1.1.0) destroys the terminal's socket 200 ms after the shell exits if it has not closed by then; when
 * the event loop was busy at that moment, the last few kilobytes the command wrote are still in the kernel and
 * would be lost. Reads them (the master fd is non-blocking: EAGAIN or EIO ends the loop) before the socket goes.
 * Relies on the unexported `_socket`/`_fd` of UnixTerminal; if they are not there, nothing changes.
 */
function drainBeforeDestroy(term: IPty, push: (chunk: string) => void): void {
  const internals = term as unknown as { _socket?: { destroy?: (...args: unknown[]) => unknown }; _fd?: unknown };
  const socket = internals._socket;
  const fd = internals._fd;
  if (!socket || typeof socket.destroy !== 'function' || typeof fd !== 'number') return;
  const destroy = socket.destroy.bind(socket);
  socket.destroy = (...args: unknown[]) => {
    const decoder = new StringDecoder('utf8');
    const chunk = Buffer.alloc(64 * 1024);
    for (let i = 0; i < 256; i++) {
      let read: number;
      try {
        read = readSync(fd, chunk, 0, chunk.length, null);
      } catch {
        break; // EAGAIN: nothing left; EIO: the other side is closed and empty
      }
      if (read <= 0) break;
      push(decoder.write(chunk.subarray(0, read)));
    }
    const rest = decoder.end();
    if (rest) push(rest);
    return destroy(...args);
  };
}

/**
 * Runs a program in a pseudo-terminal (its output is a terminal's: colours, line buffering) and stops it — and
 * everything it started — on timeout or abort.
 */
export function runInPty(options: PtyRunOptions): Promise<PtyRunResult> {
  const started = performance.now();
  const grace = options.killGraceMs ?? 500;
  return new Promise<PtyRunResult>((resolve, reject) => {
    let term: IPty;
    // A random tag in the environment of everything the command starts, to find what escaped the process tree.
    const marker = `RUN_SHELL_TAG=${randomBytes(9).toString('base64url')}`;
    const env = { ...options.env, [marker.split('=')[0]!]: marker.split('=')[1]! };
    try {
      term = spawn(options.file, options.args, { name: 'xterm-256color', cols: 160, rows: 48, cwd: options.cwd, env });
    } catch (error) {
      reject(new ToolError('SPAWN_FAILED', `The shell could not be started: ${(error as Error).message}`));
      return;
    }
    const tree = new ProcessTree(term.pid, marker);
    tree.watch(WATCH_INTERVAL_MS);
    const buffer = new OutputBuffer(options.maxOutputBytes);
    let streamed = 0;
    let streaming = options.onOutput !== undefined;
    let timedOut = false;
    let cancelled = false;
    let stopping: Promise<void> | undefined;
    let settled = false;
    let fallback: NodeJS.Timeout | undefined;

    const onChunk = (chunk: string) => {
      if (settled) return;
      buffer.push(chunk);
      if (!streaming) return;
      streamed += Buffer.byteLength(chunk);
      if (streamed <= options.maxOutputBytes) {
        options.onOutput!(chunk);
      } else {
        streaming = false;
        options.onOutput!('\r\n[… live output stops here; the result keeps the start and the end …]\r\n');
      }
    };
    const dataListener = term.onData(onChunk);
    drainBeforeDestroy(term, onChunk);

    const stop = () => {
      stopping ??= tree.terminate(grace);
      // The terminal reports the exit once its last reader is gone; should that never come, answer anyway.
      fallback ??= setTimeout(() => void finish(null, undefined), grace + EXIT_WAIT_MS);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, options.timeoutMs);
    const onAbort = () => {
      cancelled = true;
      stop();
    };
    options.signal.addEventListener('abort', onAbort, { once: true });
    if (options.signal.aborted) onAbort();

    const finish = async (exitCode: number | null, signalNumber: number | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(fallback);
      options.signal.removeEventListener('abort', onAbort);
      // Background jobs the command left behind end with it.
      await (stopping ?? tree.terminate(100));
      tree.stopWatching();
      dataListener.dispose();
      exitListener.dispose();
      if (cancelled) {
        reject(new ToolError('CALL_CANCELLED', 'The command was stopped because the call was cancelled.'));
        return;
      }
      const signalName = signalNumber ? (SIGNAL_NAMES.get(signalNumber) ?? `signal ${signalNumber}`) : undefined;
      resolve({
        output: buffer.text().replace(/\r\n/g, '\n'),
        exitCode: signalName ? null : exitCode,
        ...(signalName ? { signal: signalName } : {}),
        timedOut,
        truncated: buffer.truncated,
        durationMs: Math.round(performance.now() - started),
      });
    };
    const exitListener = term.onExit(({ exitCode, signal }) => void finish(exitCode, signal));
  });
}
