import { lstatSync } from 'node:fs';
import { posix } from 'node:path';
import type { RunFile } from '../../../decision.js';
import type { LineReader, Script } from '../context.js';
import { realPath } from '../operand-places.js';
import type { Word } from '../words.js';
import { BUILD_TOOL_RUNS } from './build-tools.js';
import { CONTAINER_RUNS } from './containers.js';
import { Found, type Handler, runKey, uniqueRuns, type Values } from './found.js';
import { JAVASCRIPT_RUNS } from './javascript.js';
import { OTHER_ECOSYSTEM_RUNS } from './other-ecosystems.js';
import { PYTHON_RUNS } from './python.js';
import { REPOSITORY_RUNS } from './repositories.js';
import { SCRIPT_RUNS } from './scripts.js';

/**
 * What a command runs besides its own words: the files that decide what it does. `make` runs the recipes of the
 * Makefile, `npm test` the scripts of package.json, `pytest` every conftest.py on the way to its tests, `act` the
 * workflows in .github/workflows, `./build.sh` itself. Security: a client that may write files inside a root (it may,
 * unasked) can change what an innocent-looking command does; the approval card names such files when a client
 * wrote them recently (policy/provenance.ts), so the owner is not approving "make" blind.
 *
 * Paths are resolved from every folder the command may run in (its cwd and where a `cd` in the line went); files a
 * tool searches for upwards (package.json, conftest.py, Cargo.toml…) are named at each folder up to `/`. Which of
 * them exist does not matter here: only files a client wrote are ever shown.
 */

/** Run files followed for one command line; past this, everything under the folders it runs in counts instead. */
const MAX_RUNS = 2000;

/** What each program (by name, version digits dropped as a fallback) runs; a program belongs to one family only. */
const HANDLERS: ReadonlyMap<string, Handler> = new Map<string, Handler>([
  ...BUILD_TOOL_RUNS,
  ...JAVASCRIPT_RUNS,
  ...PYTHON_RUNS,
  ...OTHER_ECOSYSTEM_RUNS,
  ...REPOSITORY_RUNS,
  ...CONTAINER_RUNS,
  ...SCRIPT_RUNS,
]);

/**
 * The files a program run with these words runs or reads its instructions from, from each of `bases` (the folders
 * it may start in). `program` is the name as written (`make`, `/usr/bin/make`, `./gradlew`).
 */
export function runsOf(program: string, args: readonly Word[], bases: readonly string[], home: string): RunFile[] {
  const name = posix.basename(program);
  const values: Values = args.map((w) => w.value);
  const out: RunFile[] = [];
  for (const base of new Set(bases)) {
    const found = new Found(name, home);
    // A program named by its path is a file someone could have written (`./build.sh`, `tools/make`).
    if (program.includes('/')) found.file(found.at(base, program), program);
    const handler = HANDLERS.get(name) ?? HANDLERS.get(name.replace(/[0-9.]+$/, ''));
    handler?.(found, base, args, values);
    out.push(...found.files);
    if (found.overflow) out.push({ path: base, by: name, tree: true });
  }
  return uniqueRuns(out);
}

/** The run files already noted for a line (before links are followed), to follow each one once. */
const noted = new WeakMap<LineReader, Set<string>>();

/**
 * Notes, for the line being read, what one of its simple commands runs. Security: a line built to name more files
 * than are followed (`make -C a1; … make -C a5000; make`) does not push the real one off the list: past the limit,
 * anything under the folders it runs in counts as what it runs.
 */
export function noteRuns(script: Script, program: string, args: readonly Word[]): void {
  const reader = script.reader;
  let seen = noted.get(reader);
  if (!seen) noted.set(reader, (seen = new Set()));
  const found = runsOf(program, args, script.bases, script.paths.home);
  if (found.length === 0) return;
  const everything = script.bases.map((base): RunFile => ({ path: base, by: 'the command', tree: true }));
  const add = (files: readonly RunFile[]) => {
    const unseen = files.filter((file) => !seen.has(runKey(file)));
    for (const file of unseen) seen.add(runKey(file));
    reader.runs.push(...realRuns(unseen));
  };
  const over = seen.size > MAX_RUNS;
  add(over ? everything : found);
  if (!over && seen.size > MAX_RUNS) add(everything);
}

/** Each run file with symlinks followed, and a link itself too (a client may have written either). */
export function realRuns(files: readonly RunFile[]): RunFile[] {
  const out: RunFile[] = [];
  const parents = new Map<string, string>();
  for (const file of files) {
    const folder = posix.dirname(file.path);
    let parent = parents.get(folder);
    if (parent === undefined) parents.set(folder, (parent = realPath(folder)));
    const named = posix.join(parent, posix.basename(file.path));
    out.push({ ...file, path: named });
    let link = false;
    try {
      link = lstatSync(named).isSymbolicLink();
    } catch {
      // Not there: only the name is known.
    }
    if (link) out.push({ ...file, path: realPath(named) });
  }
  return uniqueRuns(out);
}
