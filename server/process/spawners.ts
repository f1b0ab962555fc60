import { spawn } from 'node:child_process';
import { readSync } from 'node:fs';
import type { Duplex, Readable, Writable } from 'node:stream';
import { constants } from 'node:os';
import { StringDecoder } from 'node:string_decoder';
import { spawn as spawnPty, type IPty } from 'node-pty';

/** How a started program reports back to the runner, whether it runs on pipes or in a terminal. */
export interface Spawned {
  pid: number;
  /** Resolves when the program has exited (not its children). Never rejects. */
  exited: Promise<{ exitCode: number | null; signal: string | null }>;
  /**
   * Resolves once its output has been read to the end, after the leftovers of the run were killed. A child that
   * escaped the kill may still hold the pipes open: then reading stops after `maxWaitMs`.
   */
  drained(maxWaitMs: number): Promise<void>;
  /** Stops delivering output (the run is over) and releases the streams. */
  dispose(): void;
  /**
   * The conversation with a program that talks (spawnWithPipes with `stdin: 'open'` or `'channel'`): its standard
   * input and output, or both ends of its file descriptor 3.
   */
  stdio?: { stdin: Writable; stdout: Readable };
}

export interface SpawnRequest {
  argv: readonly string[];
  cwd: string;
  env: Record<string, string>;
  onData: (stream: 'stdout' | 'stderr', chunk: Buffer | string) => void;
  /** Windows: pass the arguments as they are (already quoted for cmd.exe). */
  windowsVerbatimArguments?: boolean;
}

const SIGNAL_NAMES = new Map(Object.entries(constants.signals).map(([name, number]) => [number, name]));

/**
 * A program on pipes, leader of a new session and process group (setsid through `detached`), so its group can be
 * signalled as a whole. Rejects when the system cannot start it.
 *
 * `stdin`: what it reads, then end of input; `'open'`: the caller talks to it over standard input and output;
 * `'channel'`: the caller talks to it over a separate pipe, its file descriptor 3, and its standard input is empty —
 * then whatever it (or a program it starts, or a native library) prints on standard output is only output, and
 * cannot break into the conversation.
 */
export function spawnWithPipes(request: SpawnRequest & { stdin: string | Buffer | 'open' | 'channel' }): Promise<Spawned> {
  return new Promise((resolve, reject) => {
    const [file, ...args] = request.argv;
    const channel = request.stdin === 'channel';
    const child = spawn(file!, args, {
      cwd: request.cwd,
      env: request.env,
      detached: process.platform !== 'win32',
      stdio: channel ? ['ignore', 'pipe', 'pipe', 'pipe'] : ['pipe', 'pipe', 'pipe'],
      windowsHide: true,
      ...(request.windowsVerbatimArguments && { windowsVerbatimArguments: true }),
    });
    let closed = false;
    const close = new Promise<void>((done) => child.once('close', () => ((closed = true), done())));
    const exited = new Promise<{ exitCode: number | null; signal: string | null }>((done) =>
      child.once('exit', (exitCode, signal) => done({ exitCode, signal })),
    );
    if (child.pid === undefined) {
      // The system refused to start it (ENOENT, EACCES): the reason comes as an error event.
      child.once('error', reject);
      return;
    }
    child.on('error', () => {
      // Only failures of kill() or of the pipes come here once it runs; the exit is reported either way.
    });
    // In a conversation over standard input and output, standard output is the caller's to read.
    const socket = channel ? (child.stdio[3] as Duplex) : undefined;
    const talk = socket ? { stdin: socket, stdout: socket } : request.stdin === 'open' ? { stdin: child.stdin!, stdout: child.stdout! } : undefined;
    if (request.stdin !== 'open') child.stdout!.on('data', (chunk: Buffer) => request.onData('stdout', chunk));
    child.stderr!.on('data', (chunk: Buffer) => request.onData('stderr', chunk));
    (socket ?? child.stdin)?.on('error', () => {
      // The program exited without reading all of its input; that is its business.
    });
    // Resolved at once, not on the 'spawn' event: the caller records the pid before anything else can run.
    if (!talk) child.stdin!.end(request.stdin as string | Buffer);
    resolve({
      ...(talk && { stdio: talk }),
      pid: child.pid,
      exited,
      async drained(maxWaitMs) {
        if (closed) return;
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([close, new Promise<void>((done) => (timer = setTimeout(done, maxWaitMs)))]);
        clearTimeout(timer);
      },
      dispose() {
        child.stdout!.removeAllListeners('data');
        child.stderr!.removeAllListeners('data');
        child.stdout!.destroy();
        child.stderr!.destroy();
        socket?.destroy();
        child.unref();
      },
    });
  });
}

/**
 * A program in a pseudo-terminal (its output is a terminal's: colours, line buffering). node-pty makes it a
 * session and group leader with the terminal as its controlling terminal. All output arrives as `stdout`.
 */
export function spawnInTerminal(request: SpawnRequest & { cols: number; rows: number }): Spawned {
  const [file, ...args] = request.argv;
  const term = spawnPty(file!, args, { name: 'xterm-256color', cols: request.cols, rows: request.rows, cwd: request.cwd, env: request.env });
  let open = true;
  const push = (chunk: string) => {
    if (open) request.onData('stdout', chunk);
  };
  const dataListener = term.onData(push);
  drainBeforeDestroy(term, push);
  let exitListener: { dispose(): void } | undefined;
  const exited = new Promise<{ exitCode: number | null; signal: string | null }>((done) => {
    exitListener = term.onExit(({ exitCode, signal }) => {
      const name = signal ? (SIGNAL_NAMES.get(signal) ?? `signal ${signal}`) : null;
      done({ exitCode: name ? null : exitCode, signal: name });
    });
  });
  return {
    pid: term.pid,
    exited,
    // The terminal reports the exit only once its output has been read.
    drained: async () => undefined,
    dispose() {
      open = false;
      dataListener.dispose();
      exitListener?.dispose();
    },
  };
}

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
