import path from 'node:path';
import { allow, ask, type PolicyDecision } from '../decision.js';
import { describeLookalikes, lookalikeForm } from './lookalike.js';
import { codeExecutionRisk, type Describe, readRisk, writeRisk } from './inside-root.js';
import { absolutePath, checkShape, resolveTarget, type PathAccess } from './path-input.js';
import { deleteRoot, describePath, lookalike, noRoots, outsideRoots, pincerCode, pincerData } from './path-refusals.js';
import { checkRoots, containingRoot, realOrResolved, type CheckedRoots } from './path-roots.js';
import { isWithin } from './within.js';

/**
 * Path containment for the file tools (docs/security.md, "The policy": paths). Roots are realpath'd when they are set
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
 * - path:hard-link       ask   reading or writing a file with more than one name: the other name may be outside the roots
 * - path:inside-root     allow everything else inside a root
 *
 * The path as given is read in path-input.ts, the roots checked in path-roots.ts, the refusals worded in
 * path-refusals.ts; this class puts the steps in order.
 */

export { MAX_PATH_LENGTH, type PathAccess } from './path-input.js';
export type { CheckedRoots } from './path-roots.js';

export interface PathVerdict {
  decision: PolicyDecision;
  /** The real path the call would act on (for write and delete: the real parent plus the name as given). */
  resolved?: string;
  /** The real root that contains it. */
  root?: string;
  /** `resolved` relative to `root`, with `/` separators; `.` for the root itself. */
  relative?: string;
}

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
    return { decision: lookalike(input, characters, folded, escape, roots) };
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
        if (containingRoot(roots, lexical) === undefined) return 'is outside the allowed folders';
        return undefined;
      }
      default:
        return undefined;
    }
  }

  /** The steps of one judgement, in order; the first that has something to say decides. */
  async #judge(input: unknown, access: PathAccess, roots: readonly string[]): Promise<PathVerdict> {
    const shape = checkShape(input, roots);
    if (typeof shape !== 'string') return { decision: shape };
    const absolute = absolutePath(shape, roots);
    if (typeof absolute !== 'string') return { decision: absolute };
    const target = await resolveTarget(shape, absolute, access);
    if ('decision' in target) return target;
    const { resolved } = target;
    const describe = (where: string) => describePath(shape, where);
    const own = this.#ownFolders(describe, resolved, access);
    if (own !== undefined) return own;
    if (roots.length === 0) return { decision: noRoots(describe(resolved)), resolved };
    const root = containingRoot(roots, resolved);
    if (root === undefined) return { decision: outsideRoots(roots, describe(resolved)), resolved };
    const where = { resolved, root, relative: resolved === root ? '.' : path.relative(root, resolved).split(path.sep).join('/') };
    const risk =
      access === 'delete'
        ? this.#deleteRisk(describe, resolved, roots)
        : access === 'write'
          ? await writeRisk(describe, target)
          : access === 'read'
            ? await readRisk(describe, target)
            : undefined;
    if (risk === 'pincer-data') return this.#pincerData(describe, resolved);
    return { decision: risk ?? allow('path:inside-root', `${describe(resolved)} is inside the allowed folder ${root}.`), ...where };
  }

  /** Pincer's data folder (never), and its code (never written or deleted); undefined when neither is reached. */
  #ownFolders(describe: Describe, resolved: string, access: PathAccess): PathVerdict | undefined {
    if (this.isProtected(resolved)) return this.#pincerData(describe, resolved);
    if (access !== 'write' && access !== 'delete') return undefined;
    // Security: Pincer's code and bundled plugins run as Pincer (bundled plugins unasked, reloaded on change): a
    // write there is code execution with no approval. A delete of a folder holding them would remove them too.
    const code = this.#readOnly.find((dir) => isWithin(resolved, dir, true) || (access === 'delete' && isWithin(dir, resolved, true)));
    if (code === undefined) return undefined;
    return { decision: pincerCode(describe(resolved), code, isWithin(resolved, code, true), access), resolved };
  }

  #pincerData(describe: Describe, resolved: string): PathVerdict {
    return { decision: pincerData(describe(resolved), this.isProtected(resolved)), resolved };
  }

  /**
   * A delete inside a root: never of a root or what holds one, never of what holds the data folder ('pincer-data'),
   * asked when it removes a file something runs, asked in every other case.
   */
  #deleteRisk(describe: Describe, resolved: string, roots: readonly string[]): PolicyDecision | 'pincer-data' {
    const rootHit = roots.find((r) => isWithin(r, resolved));
    if (rootHit !== undefined) return deleteRoot(describe(resolved), resolved, rootHit);
    // Security: a recursive delete of a parent would take the data folder (tokens, database) with it.
    if (this.#protected.some((dir) => isWithin(dir, resolved, true))) return 'pincer-data';
    return (
      codeExecutionRisk(describe, resolved, 'delete') ??
      ask('path:delete', `Deleting ${describe(resolved)} cannot be undone, so a person must approve it. Approve if you expected it to be removed.`)
    );
  }
}
