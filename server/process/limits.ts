/**
 * Resource limits of a child process (its memory), set before it starts and inherited by everything it starts.
 *
 * The mechanism is the one run_python has always used — a `setrlimit` in the process itself, kept across exec and
 * fork — applied here for any program: the command line is started through `/bin/sh -c 'ulimit …; exec "$@"'`, so the
 * limit is in place before the program's first instruction, with or without the OS sandbox (the sandbox wraps this
 * command line, and `/bin/sh` is among the system files it shows). Both soft and hard limits are set, so the program
 * cannot raise them again (unless it runs as root outside the sandbox; inside it, root has no capabilities).
 * A `ulimit` the system refuses means a lower hard limit is already in place: the run goes on under that one.
 *
 * A limit is per process, not per tree: a command that starts several hungry programs can use a multiple of it.
 */

/** What to limit; sizes in bytes, rounded down to KiB (the unit of `ulimit`). */
export interface ProcessLimits {
  /**
   * RLIMIT_DATA: the heap and every private writable mapping of each process — what a program really allocates
   * (malloc, an anonymous mmap, brk). Reserved but inaccessible ranges do not count, so Node, Java and Go, which
   * reserve large virtual ranges up front, start normally under it.
   */
  dataBytes?: number;
  /** RLIMIT_AS: the whole address space of each process (what run_python's interpreter sets on itself). */
  addressSpaceBytes?: number;
}

/** The command line that starts `argv` under `limits` (unchanged where there is no POSIX shell: Windows). */
export function withLimits(argv: readonly string[], limits: ProcessLimits | undefined, platform: NodeJS.Platform = process.platform): readonly string[] {
  if (!limits || platform === 'win32') return argv;
  const steps: string[] = [];
  const kib = (bytes: number) => String(Math.max(1, Math.floor(bytes / 1024)));
  if (limits.dataBytes !== undefined) steps.push(`ulimit -d ${kib(limits.dataBytes)} 2>/dev/null`);
  if (limits.addressSpaceBytes !== undefined) steps.push(`ulimit -v ${kib(limits.addressSpaceBytes)} 2>/dev/null`);
  if (steps.length === 0) return argv;
  return ['/bin/sh', '-c', `${steps.join('; ')}; exec "$@"`, 'sh', ...argv];
}

/**
 * What programs print when an allocation fails — which, under a memory limit, is the limit: coreutils and other GNU
 * tools ("memory exhausted"), bash ("xmalloc: cannot allocate N bytes"), git, Perl, Go and Node ("out of memory"),
 * Python (MemoryError), C++ (std::bad_alloc), Rust ("memory allocation of N bytes failed"), Java, and ENOMEM itself
 * ("Cannot allocate memory", a fork or mmap refused).
 */
const ALLOCATION_FAILED =
  /memory exhausted|cannot allocate (?:\d+ bytes|memory)|out of memory|OutOfMemoryError|\bMemoryError\b|std::bad_alloc|memory allocation of \d+ bytes failed|insufficient memory for the Java Runtime/i;

/**
 * Whether a run that failed looks stopped by a memory limit: it did not end well (a non-zero exit or a signal) and
 * the end of its output says an allocation failed. A successful run that merely prints such words (a grep for them) is not.
 */
export function stoppedByMemoryLimit(run: { exitCode: number | null; signal: string | null }, output: string): boolean {
  if (run.exitCode === 0 && !run.signal) return false;
  // The failure is said last (a stack trace after it at most): an old mention further up is not this run's end.
  return ALLOCATION_FAILED.test(output.slice(-TAIL_CHARS));
}

const TAIL_CHARS = 8 * 1024;
