/**
 * Where the paths a command names lead: Pincer's data folder is refused, reads outside the roots ask (and are noted
 * for folder grants), look-alike traversals and writes to the system's trust files are refused, and a repository's
 * own settings that make git run programs ask.
 */
import { lstatSync } from 'node:fs';
import { posix } from 'node:path';
import type { Script } from './context.js';
import { hostileGitSetting } from './git-config.js';
import { gitDirectories, operandsOf } from './operands.js';
import { absoluteFrom, isFolder, judgeWord, lookalikeEscape, placeOf, realPath, type Judged } from './operand-places.js';
import { isWithin } from '../within.js';
import { namesProtectedPath, normalizeAbsolute, secretFile, secretIn, trustFile, trustFileGlob } from './named-paths.js';
import { short } from './programs/check.js';
import { METADATA_ONLY } from './programs/readers.js';
import { askRule, denyLookalike, denyPincerCode, denyPincerData, denyRule } from './rules.js';
import { hasGlob, literalWord, type Word } from './words.js';
import { destroyedBy, howSwept, treeHoldsData } from './sweeps.js';
import { REWRITES_CONTENT, writesOf } from './writes.js';

/** Secrets and Pincer's folder named where no command reads them yet (loop lists, here-strings). */
export function mentioned(script: Script, word: Word, what: string): void {
  pincerData(script, word);
  const secret = secretIn(word, script.paths, script.cwdGuesses);
  if (secret) script.push(askRule('secret-read', `${what} ${secret} (${short(word.text, 40)})`));
}

/** Naming the data folder (or something in it) is refused; a glob over a folder that holds it (`ls /*`) asks. */
export function pincerData(script: Script, word: Word): void {
  const named = namesProtectedPath(word, script.paths, script.cwdGuesses);
  if (named === 'reaches') {
    script.push(askRule('pincer-data-within', `The command lists a folder that holds Pincer's data folder (${short(word.text, 50)})`));
  } else if (named === 'names') {
    script.push(denyPincerData(`The command names Pincer's data folder (${short(word.text, 50)})`));
  }
}

/**
 * Security: a command that deletes or overwrites each file of a sweep over a tree that holds Pincer's data folder
 * (`find ~ -delete`, when the data is in `~/.pincer`) destroys the token and history with the rest: refused when
 * the sweep takes every file, asked about (saying so) when a name test picks them.
 */
export function sweptData(script: Script, program: string, args: Word[]): void {
  const here = script.cwdGuesses.length > 0 ? script.cwdGuesses : [script.reader.cwd];
  for (const word of destroyedBy(program, args)?.words ?? []) {
    const sweep = word.sweep;
    if (!sweep || !treeHoldsData(sweep.tree, script.paths, here)) continue;
    const what = `${howSwept(sweep, program)} would reach every folder under ${short(sweep.tree.text, 40)}, Pincer's data folder included`;
    script.push(sweep.broad ? denyPincerData(what) : askRule('pincer-data-within', what));
  }
}

/**
 * Security: a read-only command may read only inside the roots, as the file tools may (docs/security.md, "The policy").
 */
export function readsOutside(script: Script, program: string, args: Word[]): void {
  const { paths, recursive, followsLinks } = operandsOf(program, args);
  for (const word of paths) operand(script, word, 'read', program);
  if (!followsLinks) return;
  for (const word of recursive) {
    const judged = judgeWord(word, script.paths, script.bases, script.reader.globs);
    if (judged === 'too-many') continue; // already asked for by operand()
    for (const { real, place } of judged) {
      if (place === 'inside') linksUnder(script, real, `${program} follows a symbolic link under ${short(word.text, 40)}`);
    }
  }
}

/**
 * Security: a command that opens the names another one printed (`find . | xargs cat`, `ls | while read f…`) opens
 * whatever a link among them leads to; every link under the folders the names come from is judged as read.
 */
export function namesFromListing(script: Script): void {
  for (const base of new Set(script.bases.map(realPath))) {
    if (placeOf(base, script.paths) === 'inside') linksUnder(script, base, 'The command opens names listed from a folder with a symbolic link');
  }
}

/** Judges every link under a folder that leads out of the roots: into the data folder refused, elsewhere asks. */
function linksUnder(script: Script, folder: string, what: string): void {
  const out = script.reader.walks.linksOut(folder);
  if (out === 'too-many') {
    script.push(askRule('too-complex', `${what}s through ${short(folder, 40)}, a folder too large to check where each link leads`));
    return;
  }
  for (const { real, place } of out) {
    if (place === 'protected') script.push(denyPincerData(`${what} into Pincer's data folder (${real})`));
    else outsidePath(script, real, 'read', `${what} to ${real}`);
  }
}

/** Judges one path a command reads or writes: Pincer's data is refused, outside the roots is noted (and asks, for reads). */
export function operand(script: Script, word: Word, access: 'read' | 'write', program: string): void {
  const judged = judgeWord(word, script.paths, script.bases, script.reader.globs);
  if (judged === 'too-many') {
    script.push(askRule('too-complex', `${short(word.text, 40)} matches or lists too many files to check where each one leads`));
    return;
  }
  for (const { real, place } of judged) {
    const shown = word.value === real ? real : `${short(word.text, 50)} (${real})`;
    if (place === 'protected') script.push(denyPincerData(`${program} would ${access} ${shown}, inside Pincer's data folder`));
    else if (place === 'outside') outsidePath(script, real, access, `${program} would ${access} ${shown}`);
    // A glob or a link can lead to a secret its spelling does not show (`/et[c]/shadow`, `notes -> ~/.ssh/id_rsa`),
    // and a file the command opens is judged as file_read judges it (`cat .ENV`, `cat proj/credentials`).
    if (access === 'read') {
      const secret =
        (real !== word.value ? secretIn(literalWord(real), script.paths) : undefined) ??
        (METADATA_ONLY.has(program) ? undefined : secretFile(real));
      if (secret) script.push(askRule('secret-read', `${program} would read ${secret} (${secretShown(script, word, real)})`));
      else if (place === 'inside' && !METADATA_ONLY.has(program)) hardLink(script, program, real, word);
    }
  }
}

/**
 * Security: a file inside a root with a second name (a hard link) holds what that name holds, which may be outside
 * the roots or in Pincer's data folder — file_read asks for it, and the sandbox cannot tell the names apart.
 */
function hardLink(script: Script, program: string, real: string, word: Word): void {
  let names: number;
  try {
    const stat = lstatSync(real);
    if (!stat.isFile()) return;
    names = stat.nlink;
  } catch {
    return;
  }
  if (names <= 1) return;
  script.push(askRule('hard-link', `${program} would read ${secretShown(script, word, real)}, a hard link (the same file has ${names} names, one maybe outside the allowed folders)`));
}

/** A secret an operand leads to, as a reason shows it: as written, and where it leads when that is another name. */
function secretShown(script: Script, word: Word, real: string): string {
  const cwd = script.reader.cwd;
  const path = isWithin(real, cwd) ? posix.relative(cwd, real) : real;
  return word.value === path || word.value === real ? path : `${short(word.text, 40)}, which is ${path}`;
}

/** Notes a path outside the roots for the approval card and folder grants; reading it asks. */
function outsidePath(script: Script, real: string, access: 'read' | 'write', what: string): void {
  const known = script.reader.outside.get(real);
  if (!known || known.access === 'read') {
    script.reader.outside.set(real, { path: real, access, folder: isFolder(real) ? real : posix.dirname(real) });
  }
  if (access === 'read') {
    script.push(askRule('outside-roots', `${what}, which is outside the folders Pincer may use (${script.paths.roots.join(', ')})`));
  }
}

/** Security: `．．／．．／etc` is a traversal waiting for the next program that normalises it. */
export function lookalike(script: Script, word: Word): void {
  const becomes = lookalikeEscape(word, script.paths, script.bases);
  if (becomes !== undefined) script.push(denyLookalike(short(word.text, 60), becomes));
}

/**
 * Programs that change a whole folder tree when given one (remove it, move it, re-own it): given a folder that holds
 * Pincer's code, they change that code too.
 */
const TREE_CHANGERS = new Set(['rm', 'rmdir', 'unlink', 'shred', 'mv', 'chmod', 'chown', 'chgrp', 'chattr', 'setfacl']);

/** Notes a word that leads into Pincer's own code: a command that works there must stay inside the sandbox. */
export function codeNamed(script: Script, word: Word): void {
  if (script.reader.namesCode || script.paths.readOnlyPaths.length === 0) return;
  for (const text of word.value !== undefined ? [word.value] : word.guesses) {
    if (text === '' || text.startsWith('-')) continue;
    for (const absolute of absoluteFrom(text, script.paths.home, script.bases)) {
      const real = realPath(normalizeAbsolute(absolute));
      if (script.paths.readOnlyPaths.some((dir) => isWithin(real, dir))) {
        script.reader.namesCode = true;
        return;
      }
    }
  }
}

/** Writes to the system's trust files (users, sudo, hosts, PAM, services, cron, authorized_keys) are refused. */
export function trustWrites(script: Script, program: string, args: Word[]): void {
  const writes = writesOf(program, args);
  // Security: a move takes the file away from Pincer's code as surely as a write puts one there.
  for (const source of writes.moved ?? []) codeWrite(script, program, source, [], false);
  if (writes.accountTool) {
    script.push(denyRule('trust-file-write', `${program} rewrites the system's user, password or sudo database`));
  }
  if (writes.installsCrontab) {
    script.push(denyRule('trust-file-write', 'crontab with a file (or "-") installs a timetable of commands that then run on their own'));
  }
  for (const target of writes.targets) {
    if (codeWrite(script, program, target, writes.sourceNames, TREE_CHANGERS.has(program))) continue;
    const judged = trustWrite(script, program, target, writes.sourceNames);
    // Noted (not asked for: writing asks anyway) so that an approved write outside the roots gets exactly that path.
    if (judged !== 'too-many') for (const { real, place } of judged) if (place === 'outside') outsidePath(script, real, 'write', program);
    // rsync copies a folder's contents (`src/`) into the target itself: the whole target stands for what it wrote.
    if (REWRITES_CONTENT.has(program)) noteWrites(script, judged, program === 'rsync' ? [] : writes.sourceNames);
  }
  if (!writes.known) script.reader.unknownReach = true;
}

/**
 * Security: a written path (or a file a copy puts into it) inside Pincer's own code or bundled plugins is refused,
 * even with approval: changed code runs as Pincer. With `tree`, so is a folder that holds them (`rm -r`, `mv`,
 * `chmod -R` of a parent). Answers whether it refused.
 */
export function codeWrite(script: Script, program: string, target: Word, sourceNames: readonly string[], tree: boolean): boolean {
  const locked = script.paths.readOnlyPaths;
  if (locked.length === 0) return false;
  const texts = target.value !== undefined ? [target.value] : target.guesses.filter(Boolean);
  const judged = judgeWord(target, script.paths, script.bases, script.reader.globs);
  const reals = [
    ...texts.flatMap((text) => absoluteFrom(text, script.paths.home, script.bases).map((p) => realPath(normalizeAbsolute(p)))),
    ...(judged === 'too-many' ? [] : judged.map((j) => j.real)),
  ];
  for (const real of reals) {
    for (const path of [real, ...sourceNames.map((n) => posix.join(real, n))]) {
      const dir = locked.find((d) => isWithin(path, d) || (tree && isWithin(d, path)));
      if (dir !== undefined) {
        const where = isWithin(path, dir) ? `into Pincer's own code (${path})` : `${path}, a folder that holds Pincer's own code (${dir})`;
        script.push(denyPincerCode(`${program} would write ${where}`));
        return true;
      }
    }
  }
  return false;
}

/**
 * Notes what a command writes, for the record of which client wrote the files a later command runs: a folder a
 * copy goes into stands for the names copied there, or for everything in it when the names are a glob.
 */
export function noteWrites(script: Script, judged: Judged[] | 'too-many', sourceNames: readonly string[]): void {
  if (judged === 'too-many') return;
  for (const { real, place } of judged) {
    if (place === 'protected') continue;
    const names = isFolder(real) ? sourceNames : [];
    if (names.length === 0 || names.some((name) => hasGlob(name))) script.reader.writes.add(real);
    else for (const name of names) script.reader.writes.add(posix.join(real, name));
  }
}

/**
 * Security: one written path (or the files a copy puts into it, `sourceNames`) against the system's trust files.
 * Answers where the path really leads, for the caller to note.
 */
export function trustWrite(script: Script, program: string, target: Word, sourceNames: readonly string[]): Judged[] | 'too-many' {
  const texts = target.value !== undefined ? [target.value] : target.guesses.filter(Boolean);
  const judged = judgeWord(target, script.paths, script.bases, script.reader.globs);
  // The spelling as written, and where it really leads: each name a glob matches (`/etc/hos*`), links followed.
  const reals = [
    ...texts.flatMap((text) => absoluteFrom(text, script.paths.home, script.bases).map(normalizeAbsolute)),
    ...(judged === 'too-many' ? [] : judged.map((j: Judged) => j.real)),
  ];
  if (target.glob) {
    for (const text of texts) {
      for (const absolute of absoluteFrom(text, script.paths.home, script.bases)) {
        const what = trustFileGlob(absolute, script.paths.home);
        if (what) {
          script.push(denyRule('trust-file-write', `${program} would write to ${short(target.text, 40)}, which can name ${what}`));
          return judged;
        }
      }
    }
  }
  for (const real of reals) {
    for (const path of [real, ...sourceNames.map((n) => posix.join(real, n))]) {
      const what = trustFile(path);
      if (what) {
        script.push(denyRule('trust-file-write', `${program} would write to ${path}, ${what}`));
        return judged;
      }
    }
  }
  return judged;
}

/** Security: a repository's own settings (core.fsmonitor, diff.external, filters…) make git run programs. */
export function gitConfig(script: Script, args: Word[]): void {
  const moved = gitDirectories(args);
  if (moved.some((w) => w.value === undefined)) {
    script.push(askRule('git-config', 'git would run in a folder not known before the command runs, whose repository settings can make git run programs'));
    return;
  }
  const starts = moved.length > 0 ? moved.flatMap((w) => absoluteFrom(w.value!, script.paths.home, script.bases)) : script.bases;
  for (const start of new Set(starts.map(realPath))) {
    if (placeOf(start, script.paths) === 'protected') continue;
    const hostile = hostileGitSetting(start);
    if (hostile) {
      script.push(
        askRule(
          'git-config',
          `The repository's settings (${hostile.file}) set ${hostile.key} = ${short(hostile.value, 60)}, which makes git run that program`,
        ),
      );
      return;
    }
  }
}
