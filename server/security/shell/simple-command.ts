/**
 * Simple commands, once their words are known: what the program is, what it reads, whether it is on the read-only
 * list, and what a wrapper, shell or interpreter among them would run. The walk (script.ts) hands each command here.
 */
import { posix } from 'node:path';
import { catastrophe } from './catastrophic.js';
import type { Script } from './context.js';
import { merge, noFacts, type Facts, type Stdin } from './facts.js';
import { alias, embedded, evalCommand, interpreter, shell, trap } from './nested.js';
import { holdsProtectedPath, holdsSecrets, normalizeAbsolute, secretIn, secretInText } from './named-paths.js';
import { short } from './programs/check.js';
import { DUMPS_ENVIRONMENT } from './programs/environment.js';
import { readOnlyCheck } from './programs/index.js';
import { INTERPRETER, isVersionQuery, SHELLS } from './programs/interpreters.js';
import { NETWORK, RAW_SOCKET } from './programs/network.js';
import { METADATA_ONLY, readsRecursively } from './programs/readers.js';
import { MODIFIES_FILES } from './programs/writers.js';
import { codeNamed, gitConfig, lookalike, mentioned, pincerData, readsOutside, sweptData, trustWrites } from './reach.js';
import { gitDirectories } from './operands.js';
import { noteRuns } from './runs/index.js';
import { recursiveSecrets } from './recursive-reads.js';
import { output } from './redirects.js';
import { askRule, denyPincerData, denyRule, readOnly } from './rules.js';
import { literalWord, type Word } from './words.js';
import { wrapper } from './wrapped.js';
import { commandsInOptions, WRAPPERS } from './wrappers.js';

/** Programs that move, copy or remove whole folders. */
const MOVES_OR_COPIES: ReadonlySet<string> = new Set(['mv', 'cp', 'rm', 'rsync', 'rename', 'tar', 'zip', 'cpio']);

/** Where `/bin/rm` is just `rm`; a program anywhere else is a file this check does not know. */
const SYSTEM_BIN = new Set(['/bin', '/usr/bin', '/usr/local/bin', '/sbin', '/usr/sbin', '/usr/local/sbin', '/opt/homebrew/bin']);

/** One command as a list of words: the heart of the classification. */
export function classifyWords(script: Script, words: Word[], stdin: Stdin | undefined): Facts {
  const facts = noFacts();
  const name = words[0];
  if (!name) return facts;
  const args = words.slice(1);
  for (const word of words) pincerData(script, word);
  for (const word of words) lookalike(script, word);
  for (const word of words) codeNamed(script, word);

  // Catastrophes are judged on every name the program could have, wherever it lives (`/tmp/x/rm` too).
  const candidates = name.value !== undefined ? [name.value] : name.guesses.filter(Boolean);
  for (const candidate of candidates) {
    const program = posix.basename(candidate).toLowerCase();
    const found = catastrophe(program, args, script.paths, script.cwdGuesses, script.reader.cwd);
    if (found) script.push(denyRule(found.what, found.why));
    trustWrites(script, program, args);
    sweptData(script, program, args);
  }

  if (name.value === undefined || name.split) {
    facts.shellLike = true;
    script.push(askRule('dynamic-program', `The program to run (${short(name.text, 40)}) is only known at run time`));
    return facts;
  }
  const value = name.value;
  const program = posix.basename(value);
  noteRuns(script, value, args);
  const trusted =
    !value.includes('/') ||
    (SYSTEM_BIN.has(posix.dirname(normalizeAbsolute(value.startsWith('/') ? value : `/${value}`))) && value.startsWith('/'));

  const secret = args.map((w) => secretIn(w, script.paths, script.cwdGuesses)).find(Boolean);
  facts.mentionsProtected = args.some((w) => !w.value?.startsWith('-') && holdsProtectedPath(w, script.paths, script.cwdGuesses));
  if (secret) {
    facts.readsSecret = secret;
    if (!METADATA_ONLY.has(program)) script.push(askRule('secret-read', `${program} would read ${secret}`));
  }
  if (!secret && !METADATA_ONLY.has(program)) {
    // Paths inside a script argument (`sed 'r ~/.ssh/id_rsa'`, `awk '… getline < "/etc/shadow"'`).
    const inText = args.map((w) => (w.value && /[\s'"<]/.test(w.value) ? secretInText(w.value, script.paths) : undefined)).find(Boolean);
    if (inText) {
      facts.readsSecret = inText;
      script.push(askRule('secret-read', `${program} would read ${inText}`));
    }
  }
  // Security: the data folder is kept from the tools by where it is; moving or copying a folder that holds it
  // (`mv home home2`) put the token and owner secret at a path no rule knows, where file_read then took them.
  if (MOVES_OR_COPIES.has(program)) {
    const holder = args.find((w) => !w.value?.startsWith('-') && holdsProtectedPath(w, script.paths, script.cwdGuesses));
    if (holder) script.push(denyPincerData(`${program} would move, copy or remove ${short(holder.text, 40)}, which holds Pincer's data folder`));
  }
  if (readsRecursively(program, args)) {
    // git's other words are a subcommand, patterns and pathspecs (`:/`): where it reads is where `-C` moves it.
    const targets = program === 'git' ? gitDirectories(args) : args.filter((w) => !w.value?.startsWith('-'));
    const folders = targets.length <= 1 ? [literalWord('.'), ...targets] : targets;
    if (folders.some((w) => holdsProtectedPath(w, script.paths, script.cwdGuesses))) {
      script.push(askRule('pincer-data-within', `${program} would read through Pincer's data folder`));
    }
    if (folders.some((w) => holdsSecrets(w, script.paths, script.cwdGuesses))) {
      facts.readsSecret ??= 'a folder that holds keys and credentials';
      script.push(askRule('secret-read', `${program} would read through a home or system folder, where keys and credentials live`));
    }
  }
  // Secrets inside the roots: a `.env` or a key under the folders a recursive read goes through.
  const inTree = recursiveSecrets(script, program, args);
  if (inTree) facts.readsSecret ??= inTree;
  if (NETWORK.has(program)) facts.network = true;
  if (RAW_SOCKET.has(program)) facts.rawSocket = true;
  if (program === 'mkfifo' || program === 'mknod') facts.fifo = true;
  if (DUMPS_ENVIRONMENT.has(program) && args.every((w) => w.value?.startsWith('-') || w.value === undefined)) facts.dumpsEnv = true;
  if ((program === 'cd' || program === 'pushd') && trusted) trackCd(script, args);

  if (!trusted) {
    script.push(askRule('unknown-program', `${short(value, 60)} is a program file this check does not know`));
    return facts;
  }
  if (script.functions.has(value)) return facts; // its body was checked where it is defined
  script.programs.push(program);
  const classified = classify(script, program, args, stdin);
  if (readOnlyCheck(program) && !WRAPPERS.has(program) && !SHELLS.has(program)) readsOutside(script, program, args);
  if (program === 'git') gitConfig(script, args);
  merge(facts, classified);
  facts.output = classified.output;
  facts.lists = classified.lists;
  return facts;
}

/** A `cd` or `pushd`: the folders relative paths after it may start from, one per guess of its target. */
function trackCd(script: Script, args: Word[]): void {
  const target = args.find((w) => !w.value?.startsWith('-'));
  if (!target) {
    script.cwdGuesses.push(script.paths.home);
    return;
  }
  const from = script.cwdGuesses[script.cwdGuesses.length - 1] ?? script.reader.cwd;
  for (const guess of target.guesses) {
    if (guess.startsWith('/')) script.cwdGuesses.push(normalizeAbsolute(guess));
    else if (guess !== '' && guess !== '-') script.cwdGuesses.push(normalizeAbsolute(posix.resolve(from, guess)));
  }
}

/** A known program, by name: the read-only list, shells, wrappers and interpreters, or why it asks. */
function classify(script: Script, program: string, args: Word[], stdin: Stdin | undefined): Facts {
  const facts = noFacts();
  for (const text of commandsInOptions(program, args)) embedded(script, text);
  if (isVersionQuery(program, args)) {
    script.push(readOnly([program]));
    return facts;
  }
  if (SHELLS.has(program)) return shell(script, program, args, stdin);
  const spec = WRAPPERS.get(program);
  if (spec) return wrapper(script, program, spec, args, stdin);
  switch (program) {
    case 'eval':
      return evalCommand(script, args);
    case 'trap':
      return trap(script, args);
    case 'alias':
      return alias(script, args);
  }
  if (/^(?:g|m|n)?awk$/.test(program) && args.some((w) => /\/inet\d?\/(?:tcp|udp)\//.test(w.value ?? '') && /\|&/.test(w.value ?? ''))) {
    script.push(denyRule('reverse-shell', `The ${program} program runs commands it reads from a network connection (a reverse shell)`));
  }
  const check = readOnlyCheck(program);
  if (check) {
    const result = check(args, program);
    script.push(result.problem ? askRule(result.problem.rule, result.problem.why) : readOnly([program]));
    for (const text of result.scripts ?? []) embedded(script, text);
    for (const file of result.reads ?? []) mentioned(script, literalWord(file), `${program} reads`);
    for (const inner of result.commands ?? []) merge(facts, classifyWords(script, inner, undefined));
    facts.output = output(program, args, stdin);
    facts.lists = result.lists?.length ? result.lists : undefined;
    return facts;
  }
  if (INTERPRETER.test(program)) return interpreter(script, program, args, stdin);
  if (MODIFIES_FILES.has(program)) {
    script.push(askRule('modifies-files', `${program} is not read-only: it changes files or the system`));
  } else if (NETWORK.has(program)) {
    script.push(askRule('network', `${program} talks to the network`));
  } else {
    script.push(askRule('unknown-program', `${program} is not on the list of read-only commands`));
  }
  return facts;
}
