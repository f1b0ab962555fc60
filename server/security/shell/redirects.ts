/**
 * What flows into and out of a command: pipes (what one stage prints, the next one reads), here-documents and
 * here-strings, and file redirections (reads can expose secrets, writes change files, /dev/tcp reaches the network).
 */
import type { Node } from 'web-tree-sitter';
import type { Script } from './context.js';
import { merge, noFacts, type Facts, type Stdin } from './facts.js';
import { isBlockDevice, namesProtectedPath, normalizeAbsolute, secretIn, secretInText } from './named-paths.js';
import { short } from './programs/check.js';
import { codeWrite, lookalike, mentioned, namesFromListing, noteWrites, operand, pincerData, trustWrite } from './reach.js';
import { listedSecrets } from './recursive-reads.js';
import { askRule, denyPincerData, denyRule } from './rules.js';
import { evaluateWord, literalWord, type Word } from './words.js';

const HARMLESS_TARGETS = /^\/dev\/(?:null|stdout|stderr|tty|fd\/\d+|zero)$/;

/** A pipe; `stagesAfter` are stages the grammar put inside a here-document's node. */
export function pipeline(script: Script, node: Node, lastStdin: Stdin | undefined, stagesAfter: Node[] = []): Facts {
  const nodes = [...node.namedChildren.filter((c) => c.type !== 'comment'), ...stagesAfter];
  return stages(script, nodes, lastStdin);
}

/** The stages of a pipe, in order; what one prints (when known) is what the next one reads. */
function stages(script: Script, nodes: Node[], lastStdin?: Stdin, firstFacts?: Facts): Facts {
  const all: Facts[] = firstFacts ? [firstFacts] : [];
  nodes.forEach((node, i) => {
    const previous = all[all.length - 1];
    let stdin: Stdin | undefined =
      previous?.output !== undefined || previous?.lists?.length
        ? { ...(previous.output !== undefined && { text: previous.output }), ...(previous.lists?.length && { names: previous.lists }) }
        : undefined;
    if (i === nodes.length - 1 && lastStdin) stdin = lastStdin;
    all.push(stage(script, node, stdin));
  });
  for (let j = 1; j < all.length; j++) {
    if (!all[j]!.consumesNames) continue;
    namesFromListing(script);
    const before = all.slice(0, j);
    const secret = before.find((f) => f.readsSecret)?.readsSecret;
    if (secret) script.push(askRule('secret-read', `The command opens files named by a command that lists ${secret}`));
    // Names from a listing (`ls -a | xargs cat`): unless the text says what they are, any file under it may be one.
    const listing = all[j - 1]!;
    if (!secret && (listing.lists?.length || listing.output === undefined)) listedSecrets(script, listing.lists);
    if (before.some((f) => f.mentionsProtected)) {
      script.push(askRule('pincer-data-within', "The command opens files named by a command that lists Pincer's data folder"));
    }
  }
  for (let j = 0; j < all.length; j++) {
    if (!all[j]!.network) continue;
    const source = all.slice(0, j).find((f) => f.readsSecret || f.dumpsEnv);
    if (source) {
      const what = source.readsSecret ?? 'the environment (tokens and keys)';
      script.push(denyRule('exfiltration', `The command pipes ${what} into a program that sends it over the network`));
    }
  }
  if (all.some((f) => f.rawSocket || f.devTcp) && all.some((f) => f.shellLike) && all.length > 1) {
    script.push(denyRule('reverse-shell', 'The command pipes a shell to or from a network connection (a reverse shell)'));
  }
  const facts = all.reduce((acc, f) => merge(acc, f), noFacts());
  return facts;
}

/** One stage of a pipe, reading `stdin`. */
function stage(script: Script, node: Node, stdin: Stdin | undefined): Facts {
  if (node.type === 'command') return script.command(node, stdin);
  if (node.type === 'redirected_statement' && node.childForFieldName('body')?.type === 'command') return redirected(script, node, stdin);
  // A loop or group reading a pipe can open whatever the lines name.
  const facts = node.type === 'redirected_statement' ? redirected(script, node, stdin) : script.walk(node);
  facts.consumesNames = true;
  return facts;
}

/** A statement with redirections: here-documents and here-strings are its input; files are judged once it is known. */
export function redirected(script: Script, node: Node, stdinFromPipe: Stdin | undefined): Facts {
  const body = node.childForFieldName('body');
  const redirects = node.childrenForFieldName('redirect');
  let stdin = stdinFromPipe;
  const after: Node[] = [];
  const later: Node[] = [];
  for (const r of redirects) {
    if (r.type === 'heredoc_redirect') {
      const text = r.namedChildren.find((c) => c.type === 'heredoc_body')?.text ?? '';
      stdin = { text };
      mentionedInText(script, text);
      // An unquoted delimiter (<<EOF, not <<'EOF') lets bash expand the body, substitutions included.
      const start = r.namedChildren.find((c) => c.type === 'heredoc_start')?.text ?? '';
      const expands = !/['"\\]/.test(start);
      if (expands) script.hidden(text);
      for (const child of r.namedChildren) {
        // The grammar puts the rest of the line (`| sh`, `&& rm …`, `> out`) inside the here-document's node.
        if (child.type === 'pipeline') after.push(...child.namedChildren);
        else if (child.type === 'heredoc_body') {
          if (expands) script.walk(child);
        } else if (!/^heredoc_(?:start|end)$/.test(child.type)) later.push(child);
      }
    } else if (r.type === 'herestring_redirect') {
      const word = r.namedChildren[0];
      if (word) {
        script.walk(word);
        const value = evaluateWord(word, script.scope);
        mentioned(script, value, 'The here-string names');
        stdin = { text: `${value.value ?? word.text}\n` };
      }
    }
  }
  let facts: Facts;
  if (!body) facts = noFacts();
  else if (after.length > 0) facts = stages(script, after, undefined, stage(script, body, stdin));
  else if (body.type === 'pipeline') facts = pipeline(script, body, stdin);
  else facts = stage(script, body, stdin);
  for (const r of redirects) if (r.type === 'file_redirect') merge(facts, redirect(script, r, facts));
  for (const r of later) merge(facts, r.type === 'file_redirect' ? redirect(script, r, facts) : script.walk(r));
  return facts;
}

/** A redirection: reads can expose secrets, writes change files, /dev/tcp reaches the network. */
export function redirect(script: Script, node: Node, commandFacts: Facts): Facts {
  const facts = noFacts();
  if (node.type !== 'file_redirect') {
    return script.children(node);
  }
  const operator = node.children.find((c) => !c.isNamed)?.type ?? '>';
  const destinations = node.childrenForFieldName('destination');
  const destination = destinations[0];
  if (!destination) return facts;
  for (const d of destinations) merge(facts, script.walk(d));
  const word = evaluateWord(destination, script.scope);
  pincerData(script, word);
  lookalike(script, word);
  const value = word.value;
  const duplicate =
    (operator === '>&' || operator === '<&') && (destination.type === 'number' || value === '-' || /^\d+-?$/.test(value ?? ''));
  if (duplicate) return facts;
  if (value !== undefined && /^\/dev\/(?:tcp|udp)\//.test(value)) {
    facts.devTcp = facts.network = facts.rawSocket = true;
    if (commandFacts.shellLike) script.push(denyRule('reverse-shell', `The command connects a shell to ${value} (a reverse shell)`));
    else if (commandFacts.readsSecret || commandFacts.dumpsEnv) {
      script.push(
        denyRule('exfiltration', `The command sends ${commandFacts.readsSecret ?? 'the environment (tokens and keys)'} to ${value}`),
      );
    }
    else script.push(askRule('network', `The command opens a network connection to ${value}`));
    return facts;
  }
  if (operator === '<') {
    operand(script, word, 'read', 'The command');
    // Security: `xargs cat < list.txt` opens whatever the file names; its lines cannot be vouched for here.
    if (commandFacts.namesOnInput) {
      script.push(askRule('dynamic-argument', `The command opens the files named in ${short(word.text, 40)}, which this check cannot see`));
    }
    const secret = secretIn(word, script.paths, script.cwdGuesses);
    if (secret) {
      facts.readsSecret = secret;
      if (commandFacts.network) {
        script.push(denyRule('exfiltration', `The command feeds ${secret} to a program that sends it over the network`));
      } else {
        script.push(askRule('secret-read', `The command reads ${secret} (${short(word.text, 40)})`));
      }
    }
    return facts;
  }
  // Everything else writes: > >> >| &> &>> <> and >& to a file name.
  if (codeWrite(script, 'The command', word, [], false)) return facts;
  const judged = trustWrite(script, 'The command', word, []);
  if (value !== undefined) operand(script, word, 'write', 'The command');
  if (value === undefined) {
    script.reader.unknownReach = true;
    script.push(askRule('write-redirect', `The command writes to a file whose name is only known at run time (${short(word.text, 40)})`));
  } else if (value.startsWith('/') && HARMLESS_TARGETS.test(normalizeAbsolute(value))) {
    // Discarding output or writing to the terminal changes nothing.
  } else if (isBlockDevice(value)) {
    script.push(denyRule('block-device-write', `The command writes over the disk ${value}`));
  } else if (value === '/proc/sysrq-trigger') {
    script.push(denyRule('shutdown', "The command writes to the kernel's emergency trigger (reboot, power off, crash)"));
  } else {
    noteWrites(script, judged, []);
    script.push(askRule('write-redirect', `The command writes to ${short(word.text, 60)} (${operator})`));
  }
  return facts;
}

/** Secrets and Pincer's folder named in a here-document's text. */
function mentionedInText(script: Script, text: string): void {
  const secret = secretInText(text, script.paths);
  if (secret) script.push(askRule('secret-read', `The here-document names ${secret}`));
  if (namesProtectedPath(literalWord(text), script.paths, script.cwdGuesses)) {
    script.push(denyPincerData("The here-document names Pincer's data folder"));
  }
}

/** What a command prints when its arguments say so: `echo …`, `printf …`, `cat` of a here-document, `base64 -d`. */
export function output(program: string, args: Word[], stdin: Stdin | undefined): string | undefined {
  if (args.some((w) => w.value === undefined)) return undefined;
  const values = args.map((w) => w.value!);
  switch (program) {
    case 'echo': {
      const text = values.filter((v, i) => !(/^-[neE]+$/.test(v) && values.slice(0, i).every((p) => /^-[neE]+$/.test(p))));
      return `${text.join(' ')}\n`;
    }
    case 'printf':
      return values.join(' ').replace(/\\n/g, '\n');
    case 'cat':
      return values.length === 0 ? stdin?.text : undefined;
    case 'find':
      return findPrints(values);
    case 'base64':
    case 'base32':
      if (values.some((v) => /^-[^-]*d|^--decode$/.test(v)) && stdin?.text !== undefined) {
        try {
          return Buffer.from(stdin.text.trim(), 'base64').toString('utf8');
        } catch {
          return undefined;
        }
      }
      return undefined;
    default:
      return undefined;
  }
}

/** The folders an unfiltered `find` prints first (its starting points), or undefined when tests pick what it prints. */
function findPrints(values: string[]): string | undefined {
  const starts: string[] = [];
  let i = 0;
  while (i < values.length && /^-[HLP]$/.test(values[i]!)) i++;
  for (; i < values.length && !/^[-(!),]/.test(values[i]!); i++) starts.push(values[i]!);
  const tests = values.slice(i).filter(
    (v) =>
      /^-/.test(v) && !/^-(?:maxdepth|mindepth|depth|xdev|mount|print0?|type|xtype|follow|noleaf|ignore_readdir_race|daystart)$/.test(v),
  );
  if (tests.length > 0) return undefined;
  return `${(starts.length > 0 ? starts : ['.']).join('\n')}\n`;
}
