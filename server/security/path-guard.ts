import { realpathSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { allow, ask, deny, type PolicyDecision } from '../decision.js';
import { describeLookalikes, lookalikeForm } from './lookalike.js';
import { codeExecutionRisk, type Describe, readRisk, type Target, writeRisk } from './inside-root.js';
import { lstatOrNull, PathProblem, walk } from './path-walk.js';
import { isWithin } from './within.js';

/**
 * Path containment for the file tools (SPEC §5, TOOLCHAIN "Path containment"). Roots are realpath'd when they are set
 * (at start, or when the owner replaces them); every target is resolved the way the kernel would (symlinks followed
 * component by component, `..` taken from the real parent) and must then sit at a root or below it (within.ts: by path segments). The
 * handlers re-run the same check right before they act and then do their I/O through `safe-fs/`, which refuses
 * symlinks at every step.
 *
 * Rules (the ids are part of the contract; they appear in the log and in approvals):
 * - path:invalid         deny  not a string, empty, over 4096 characters, NUL or control characters, white space
 *                              at either end, a symlink loop, `..` after a folder that does not exist, a name over
 *                              255 bytes, a malformed file:// URL, anything that cannot be resolved
 * - path:home-shorthand  deny  a leading `~`: we do not expand it (whose home? which root?)
 * - path:no-roots        deny  no folder is shared yet: every path, until the owner shares one
 * - path:pincer-data     deny  inside the gateway's own data directory (tokens, database, config), or a delete
 *                              that would take it with it
 * - path:pincer-code     deny  writing or deleting inside Pincer's own code (its package, its bundled plugins), or
 *                              a delete that would take it with it; reading it inside a root is allowed
 * - path:outside-roots   deny  resolves outside every root (after symlinks)
 * - path:lookalike       deny  look-alike characters (`．．／`, U+2215 `∕`, fullwidth `～`, `Ｃ：`…) that a later
 *                              normaliser (NFKC, Windows best-fit) would turn into a path outside the roots, into the
 *                              data directory, a `~` or drive path, or a root delete; one whose folded form stays
 *                              inside a root gets the stricter of its own verdict and the folded form's
 * - path:delete-root     deny  deleting a root itself or a folder that contains one
 * - path:symlink-write   deny  writing to a path whose last component is a symlink, wherever it points
 * - path:code-execution  ask   writing or deleting a file something runs without being asked (git hooks and
 *                              config, shell rc files, editor tasks, agent configs…); reading them is allowed
 * - path:delete          ask   every other delete
 * - path:secret-file     ask   reading a credentials file (.env, SSH keys, *.pem, .npmrc, .aws…)
 * - path:hard-link       ask   reading a file with more than one name: the other name may be outside the roots
 * - path:inside-root     allow everything else inside a root
 */

export type PathAccess = 'read' | 'write' | 'delete' | 'list';

export interface PathVerdict {
  decision: PolicyDecision;
  /** The real path the call would act on (for write and delete: the real parent plus the name as given). */
  resolved?: string;
  /** The real root that contains it. */
  root?: string;
  /** `resolved` relative to `root`, with `/` separators; `.` for the root itself. */
  relative?: string;
}

export const MAX_PATH_LENGTH = 4096;

// Security: control characters (newlines, escapes, bidi overrides) in a name can make an approval prompt or the
// log show a different path from the one acted on.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

/** Root folders that went through PathGuard's checks (they exist, are folders, are realpath'd): only these can be put to use. */
export type CheckedRoots = readonly string[] & { readonly __checked: unique symbol };

export class PathGuard {
  /**
   * Replaced whole, never edited in place, when the owner changes the roots: a check reads it once and judges a path
   * against one consistent set.
   */
  #roots: readonly string[];
  readonly #protected: readonly string[];
  readonly #readOnly: readonly string[];

  private constructor(roots: CheckedRoots, protectedDirs: string[], readOnlyDirs: string[]) {
    this.#roots = roots;
    this.#protected = protectedDirs;
    this.#readOnly = readOnlyDirs;
  }

  /**
   * Realpaths every root now (a root that is missing, not a folder, or at or inside a protected or read-only folder
   * throws, naming it). `protectedDirs` no tool may touch (the data directory); `readOnlyDirs` tools may read inside
   * a root but never write or delete (Pincer's own code). No roots is allowed: every path is then refused.
   */
  static create(options: { roots: string[]; protectedDirs: string[]; readOnlyDirs?: string[] }): PathGuard {
    const protectedDirs = options.protectedDirs.map(realOrResolved);
    const readOnlyDirs = (options.readOnlyDirs ?? []).map(realOrResolved);
    return new PathGuard(checkRoots(options.roots, protectedDirs, readOnlyDirs), protectedDirs, readOnlyDirs);
  }

  /** Checks folders as roots for this guard without putting them to use; throws naming the first bad one. */
  checkRoots(roots: readonly string[]): CheckedRoots {
    return checkRoots(roots, this.#protected, this.#readOnly);
  }

  /**
   * Puts new roots to use at once: every check from now on (the analyzers' and the handlers' re-check right before
   * they act) judges against them. The protected folders never change.
   */
  replaceRoots(roots: CheckedRoots): void {
    this.#roots = roots;
  }

  /** The real root folders; relative paths are taken from the first. */
  get roots(): string[] {
    return [...this.#roots];
  }

  /** Whether a real path is a protected folder (the data directory) or inside one. */
  isProtected(real: string): boolean {
    return this.#protected.some((dir) => isWithin(real, dir, true));
  }

  /** The folders tools may read but never write (Pincer's own code), real. */
  get readOnlyDirs(): string[] {
    return [...this.#readOnly];
  }

  /** Judges one path for one kind of access; never touches the file beyond lstat/readlink/realpath. */
  async check(input: unknown, access: PathAccess): Promise<PathVerdict> {
    // One set of roots for the whole check, even if the owner replaces them while it awaits the file system.
    const roots = this.#roots;
    const verdict = await this.#judge(input, access, roots);
    if (typeof input !== 'string' || verdict.decision.decision === 'deny') return verdict;
    const folded = lookalikeForm(input);
    if (folded === undefined) return verdict;
    const foldedVerdict = await this.#judge(folded, access, roots);
    const escape = this.#foldedEscape(foldedVerdict.decision, folded, roots);
    if (escape === undefined) {
      // Once normalised, `.git／hooks／pre-commit` is a git hook: the stricter of the two verdicts holds.
      return foldedVerdict.decision.decision === 'ask' && verdict.decision.decision === 'allow'
        ? { ...verdict, decision: foldedVerdict.decision }
        : verdict;
    }
    const characters = describeLookalikes(input) || 'look-alike characters';
    return {
      decision: deny(
        'path:lookalike',
        `"${printable(input)}" uses characters that look like path syntax (${characters}). Here they are ordinary characters in a name, ` +
          `but a program that normalises names (a synced folder, an archive tool, a Windows code-page conversion) turns ` +
          `the path into "${printable(folded)}", which ${escape}. Spell the path with plain "." and "/" and keep it inside ` +
          `the allowed folders (${roots.join(', ')}).`,
      ),
    };
  }

  /**
   * What the look-alike path `folded` would do once normalised, when that is something no tool may do; undefined
   * when it stays inside a root. The folded path is judged like any other; a form the walk cannot resolve (`..`
   * after a missing folder) is judged lexically instead, so it cannot slip through as merely invalid.
   */
  #foldedEscape(decision: PolicyDecision, folded: string, roots: readonly string[]): string | undefined {
    switch (decision.rule) {
      case 'path:outside-roots':
        return 'is outside the allowed folders';
      case 'path:pincer-data':
        return "reaches Pincer's own data folder";
      case 'path:pincer-code':
        return "reaches Pincer's own code";
      case 'path:home-shorthand':
        return 'starts with "~" (a home folder)';
      case 'path:delete-root':
        return 'is an allowed root folder or contains one, and tools never delete a root';
      case 'path:invalid': {
        const slashed = folded.replaceAll('\\', '/');
        if (/^[a-z]:(\/|$)/i.test(slashed) || /^file:/i.test(slashed)) return 'is outside the allowed folders';
        const lexical = path.posix.resolve(roots[0]!, slashed);
        if (this.isProtected(lexical)) return "reaches Pincer's own data folder";
        if (this.#containingRoot(roots, lexical) === undefined) return 'is outside the allowed folders';
        return undefined;
      }
      default:
        return undefined;
    }
  }

  /** The steps of one judgement, in order; the first that has something to say decides. */
  async #judge(input: unknown, access: PathAccess, roots: readonly string[]): Promise<PathVerdict> {
    const shape = this.#checkShape(input, roots);
    if (typeof shape !== 'string') return { decision: shape };
    const absolute = this.#absolute(shape, roots);
    if (typeof absolute !== 'string') return { decision: absolute };
    const target = await resolveTarget(shape, absolute, access);
    if ('decision' in target) return target;
    const { resolved } = target;
    const describe = (where: string) => describePath(shape, where);
    const own = this.#ownFolders(describe, resolved, access);
    if (own !== undefined) return own;
    if (roots.length === 0) return { decision: noRoots(describe(resolved)), resolved };
    const root = this.#containingRoot(roots, resolved);
    if (root === undefined) return { decision: this.#outside(roots, describe(resolved)), resolved };
    const where = { resolved, root, relative: resolved === root ? '.' : path.relative(root, resolved).split(path.sep).join('/') };
    const risk =
      access === 'delete'
        ? this.#deleteRisk(describe, resolved, roots)
        : access === 'write'
          ? writeRisk(describe, target)
          : access === 'read'
            ? await readRisk(describe, target)
            : undefined;
    if (risk === 'pincer-data') return this.#pincerData(describe, resolved);
    return { decision: risk ?? allow('path:inside-root', `${describe(resolved)} is inside the allowed folder ${root}.`), ...where };
  }

  /** The path as an absolute one (a relative path starts at the first root), or why it cannot be one. */
  #absolute(shape: string, roots: readonly string[]): string | PolicyDecision {
    let absolute: string;
    const normalized = shape.replaceAll('\\', '/');
    if (/^file:\/\//i.test(normalized)) {
      try {
        absolute = fileURLToPath(normalized);
      } catch {
        return invalid(`"${printable(shape)}" is not a valid file:// URL. Pass a plain path instead.`);
      }
    } else if (/^[a-z]:(\/|$)/i.test(normalized)) {
      return this.#outside(roots, `"${printable(shape)}"`, 'it is a Windows drive path, and this machine does not use drive letters');
    } else if (path.isAbsolute(normalized)) {
      absolute = normalized;
    } else {
      // A relative path starts at the first root; with none, there is nowhere it could lead.
      if (roots.length === 0) return noRoots(`"${printable(shape)}"`);
      absolute = `${roots[0]}/${normalized}`;
    }
    // A trailing slash names the same entry; dropping it keeps "link/" a link for write and delete.
    absolute = absolute.replace(/\/+$/, '') || '/';
    if (CONTROL.test(absolute)) return invalid(`"${printable(shape)}" contains control characters. Use a path without them.`);
    return absolute;
  }

  /** Pincer's data folder (never), and its code (never written or deleted); undefined when neither is reached. */
  #ownFolders(describe: Describe, resolved: string, access: PathAccess): PathVerdict | undefined {
    if (this.isProtected(resolved)) return this.#pincerData(describe, resolved);
    if (access !== 'write' && access !== 'delete') return undefined;
    // Security: Pincer's code and bundled plugins run as Pincer (bundled plugins unasked, reloaded on change): a
    // write there is code execution with no approval. A delete of a folder holding them would remove them too.
    const code = this.#readOnly.find((dir) => isWithin(resolved, dir, true) || (access === 'delete' && isWithin(dir, resolved, true)));
    if (code === undefined) return undefined;
    return {
      decision: deny(
        'path:pincer-code',
        `${describe(resolved)} is ${isWithin(resolved, code, true) ? 'inside' : 'a folder that contains'} Pincer's own code (${code}), ` +
          `which no tool may ${access === 'write' ? 'write' : 'delete'}, even with approval: changed code would run as Pincer ` +
          'itself. Work on files in the project folders instead; the owner updates Pincer by installing a new version.',
      ),
      resolved,
    };
  }

  #pincerData(describe: Describe, resolved: string): PathVerdict {
    return {
      decision: deny(
        'path:pincer-data',
        `${describe(resolved)} is ${this.isProtected(resolved) ? 'inside' : 'a folder that contains'} Pincer's own data folder ` +
          '(tokens, database, settings), which no tool may touch. Work on files in the project folders instead; the owner ' +
          'changes Pincer settings from the dashboard or the CLI.',
      ),
      resolved,
    };
  }

  /**
   * A delete inside a root: never of a root or what holds one, never of what holds the data folder ('pincer-data'),
   * asked when it removes a file something runs, asked in every other case.
   */
  #deleteRisk(describe: Describe, resolved: string, roots: readonly string[]): PolicyDecision | 'pincer-data' {
    const rootHit = roots.find((r) => isWithin(r, resolved));
    if (rootHit !== undefined) {
      return deny(
        'path:delete-root',
        `${describe(resolved)} is ${rootHit === resolved ? 'an allowed root folder itself' : `a folder that contains the allowed root ${rootHit}`}, ` +
          'and tools never delete a root. Delete the files inside it one by one, or ask the owner to do it by hand.',
      );
    }
    // Security: a recursive delete of a parent would take the data folder (tokens, database) with it.
    if (this.#protected.some((dir) => isWithin(dir, resolved, true))) return 'pincer-data';
    return (
      codeExecutionRisk(describe, resolved, 'delete') ??
      ask('path:delete', `Deleting ${describe(resolved)} cannot be undone, so a person must approve it. Approve if you expected it to be removed.`)
    );
  }

  #checkShape(input: unknown, roots: readonly string[]): string | PolicyDecision {
    if (typeof input !== 'string') return invalid('The path must be a string, for example "notes/todo.md".');
    if (input.trim() === '') return invalid('The path is empty. Give a file or folder path, for example "notes/todo.md" or "." for the root.');
    if (input.includes('\0')) return invalid('The path contains a NUL byte, which no real file name has. Remove it.');
    if (input.length > MAX_PATH_LENGTH) return invalid(`The path is ${input.length} characters long; the limit is ${MAX_PATH_LENGTH}.`);
    // " /etc/passwd" would otherwise be a folder named " " inside the root: never what the model meant.
    if (input.trim() !== input) {
      return invalid(`"${printable(input)}" starts or ends with white space. Remove it; file names here never need it.`);
    }
    if (input.startsWith('~')) {
      if (roots.length === 0) return noRoots(`"${printable(input)}"`);
      return deny(
        'path:home-shorthand',
        `"${printable(input)}" starts with "~", which Pincer does not expand. Give an absolute path inside one of the allowed folders ` +
          `(${roots.join(', ')}) or a path relative to the first one; for a file literally named "~…", write "./${printable(input)}".`,
      );
    }
    return input;
  }

  #containingRoot(roots: readonly string[], resolved: string): string | undefined {
    let best: string | undefined;
    for (const root of roots) if (isWithin(resolved, root) && (best === undefined || root.length > best.length)) best = root;
    return best;
  }

  #outside(roots: readonly string[], described: string, why?: string): PolicyDecision {
    if (roots.length === 0) return noRoots(described);
    return deny(
      'path:outside-roots',
      `${described} is outside the folders Pincer may use${why ? ` (${why})` : ''}. Allowed folders: ${roots.join(', ')}. ` +
        'Use a path inside one of them; to open another folder, the owner adds it to the roots (dashboard settings, "roots" in config.json, or PINCER_ROOTS).',
    );
  }
}

/**
 * Resolves the path as the kernel would. Read and list follow every link; write and delete act on the last name
 * itself: a symlink there is refused (write) or removed (delete), never followed. Fails closed: a path that cannot
 * be resolved is one nobody can vouch for.
 */
async function resolveTarget(shape: string, absolute: string, access: PathAccess): Promise<Target | { decision: PolicyDecision }> {
  try {
    const lastName = path.basename(absolute);
    const followLast = access === 'read' || access === 'list' || lastName === '' || lastName === '.' || lastName === '..';
    if (followLast) {
      const { real, exists } = await walk(absolute);
      return { resolved: real, exists, finalIsLink: false };
    }
    if (Buffer.byteLength(lastName) > 255) throw new PathProblem('a name in the path is longer than 255 bytes.');
    const parent = await walk(path.dirname(absolute));
    const resolved = path.join(parent.real, lastName);
    if (!parent.exists) return { resolved, exists: false, finalIsLink: false };
    const stat = await lstatOrNull(resolved);
    return { resolved, exists: stat !== null, finalIsLink: stat?.isSymbolicLink() ?? false };
  } catch (error) {
    if (error instanceof PathProblem) return { decision: invalid(`"${printable(shape)}": ${error.message}`) };
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    return { decision: invalid(`"${printable(shape)}" could not be resolved (${code}). Check the path with file_list.`) };
  }
}

/**
 * Realpaths roots and drops duplicates; refuses a root that is missing, not a folder, or at or inside a protected
 * or read-only folder. A root that contains one is fine: the folder inside it stays refused path by path.
 */
function checkRoots(roots: readonly string[], protectedDirs: readonly string[], readOnlyDirs: readonly string[]): CheckedRoots {
  const real: string[] = [];
  for (const root of roots) {
    let resolved: string;
    try {
      resolved = realpathSync.native(path.resolve(root));
    } catch (error) {
      throw new Error(`The root folder "${root}" does not exist or cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}).`);
    }
    if (!statSync(resolved).isDirectory()) throw new Error(`The root "${root}" is not a folder.`);
    // Security: a root inside the data folder would offer tools the tokens, database and config to work on; the
    // protected check would refuse each path anyway, but a root there is never what the owner meant.
    const inside = protectedDirs.find((dir) => isWithin(resolved, dir, true));
    if (inside !== undefined) {
      throw new Error(`The root "${root}" is ${resolved === inside ? '' : 'inside '}Pincer's own data folder (${inside}), which no tool may touch; choose a folder outside it.`);
    }
    // Security: a root at or inside Pincer's code offers tools nothing to write there, only a way to run as Pincer.
    const code = readOnlyDirs.find((dir) => isWithin(resolved, dir, true));
    if (code !== undefined) {
      throw new Error(
        `The root "${root}" is ${resolved === code ? '' : 'inside '}Pincer's own code (${code}: its package or bundled plugins), which no tool may change; choose a folder of your own work.`,
      );
    }
    if (!real.includes(resolved)) real.push(resolved);
  }
  return real as readonly string[] as CheckedRoots;
}

/** Security: with no folder shared, no path is inside one; the message says how the owner shares one. */
function noRoots(described: string): PolicyDecision {
  return deny(
    'path:no-roots',
    `${described} cannot be used: no folder is shared with Pincer yet, so file tools and run_shell have nowhere to work. ` +
      `${NO_ROOTS_ADVICE}`,
  );
}

/** How the owner shares a folder, for every refusal that comes from having none. */
const NO_ROOTS_ADVICE =
  'Ask the owner to share a folder: the dashboard\'s Settings (Folders file tools may use), `pincer roots add DIR`, ' +
  'or PINCER_ROOTS / "roots" in config.json.';

function realOrResolved(dir: string): string {
  const resolved = path.resolve(dir);
  try {
    return realpathSync.native(resolved);
  } catch {
    return resolved;
  }
}

function invalid(reason: string): PolicyDecision {
  return deny('path:invalid', reason);
}

function printable(text: string): string {
  // eslint-disable-next-line no-control-regex
  const clean = text.replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, '?');
  return clean.length > 200 ? `${clean.slice(0, 200)}…` : clean;
}

/** The path as the model gave it, plus the real path it leads to when that differs. */
function describePath(given: string, resolved: string): string {
  const shown = printable(given);
  return resolved === given ? `"${shown}"` : `"${shown}" (resolves to ${printable(resolved)})`;
}
