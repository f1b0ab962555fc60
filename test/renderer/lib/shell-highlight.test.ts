import { describe, expect, it } from 'vitest';
import { tokenizeShell, type ShellToken, type ShellTokenKind } from '../../../renderer/src/lib/shell-highlight.js';
import { random } from '../../helpers/random.js';

/** The tokens as `kind:text`, spaces left out: what a reader sees coloured. */
function seen(source: string): string[] {
  return tokenizeShell(source)
    .filter((token) => token.kind !== 'space')
    .map((token) => `${token.kind}:${token.text}`);
}

/** The kind given to each occurrence of `text` (a whole token), in order. */
function kindsOf(source: string, text: string): ShellTokenKind[] {
  return tokenizeShell(source)
    .filter((token) => token.text === text)
    .map((token) => token.kind);
}

const KINDS: readonly ShellTokenKind[] = ['command', 'assign', 'flag', 'arg', 'string', 'variable', 'operator', 'redirect', 'comment', 'space'];
const OPERATORS = ['&&', '||', ';;', '|&', '$(', '|', ';', '&', '(', ')', '`', '\n'];

/** Shell-significant pieces and ordinary text, glued at random: quotes, escapes, operators, unicode, newlines. */
const PIECES = [
  'a', 'rm', ' ', '  ', '\t', '\n', '-', '--', '-rf', '=', 'x=1', "'", '"', '\\', '\\\n', '$', '${', '}', '$(', '(', ')',
  '`', '|', '||', '&', '&&', ';', ';;', '<', '>', '>>', '2>&1', '<<EOF', '<<<', '#', '!', '~', '*', '日本', '🎉', 'é', '\r',
  '\u00a0', '$HOME', "$'", '0', '9',
];

function randomCommand(next: () => number): string {
  const length = Math.floor(next() * 30);
  let text = '';
  for (let i = 0; i < length; i++) text += PIECES[Math.floor(next() * PIECES.length)]!;
  return text;
}

const SAMPLES = [
  '',
  ' ',
  '\n',
  'ls',
  'ls -la /tmp',
  'a=b cmd',
  'sudo rm -rf /',
  'echo "a | b"',
  "echo 'a && b'",
  "echo 'unterminated",
  'echo "unterminated $HOME',
  'echo ${unterminated',
  'echo "a\\"b" c',
  "echo $'a\\'b'",
  'echo \\"not a string',
  'echo a\\ b',
  'cat <<EOF\nhello $USER\n  $(date)\nEOF\n',
  "cat <<'EOF' > out.txt\n'quoted' \"body\"\nEOF",
  'ls -la | grep x && echo ok || echo no; cat > f >> g < h',
  'echo $(whoami) `id` x',
  'x=$(ls) y',
  '2>&1 cmd',
  'cmd 2>&1 | tee log &',
  '# only a comment',
  'ls # trailing comment\nrm x',
  'echo 日本語 🎉 café',
  'ls \\\n  -la',
  '\\',
  '$',
  '$(',
  ')',
  '``',
  '((((',
  '"\'"\'"\'',
  '\r\n',
  '\u00a0\u2003',
];

describe('tokenizeShell: the tokens join back to the input', () => {
  it.each(SAMPLES.map((sample) => [JSON.stringify(sample), sample]))('hand-picked input %s', (_, sample) => {
    expect(tokenizeShell(sample).map((token) => token.text).join('')).toBe(sample);
  });

  it('holds for 3000 random mixes of quotes, escapes, operators, heredoc markers and unicode', () => {
    const next = random(20240611);
    for (let n = 0; n < 3000; n++) {
      const source = randomCommand(next);
      const tokens = tokenizeShell(source);
      expect(tokens.map((token) => token.text).join(''), JSON.stringify(source)).toBe(source);
    }
  });

  it('never yields an empty token or a kind outside the declared set', () => {
    const next = random(7);
    const bad: { source: string; token: ShellToken }[] = [];
    for (let n = 0; n < 1000; n++) {
      const source = randomCommand(next);
      for (const token of tokenizeShell(source)) if (token.text === '' || !KINDS.includes(token.kind)) bad.push({ source, token });
    }
    expect(bad).toEqual([]);
  });

  it('gives each token a text its kind allows (operators from the list, spaces only blank, comments one line)', () => {
    const next = random(99);
    const check = (token: ShellToken, source: string) => {
      const where = JSON.stringify(source);
      if (token.kind === 'operator') expect(OPERATORS, where).toContain(token.text);
      if (token.kind === 'space') expect(token.text, where).toMatch(/^(?:[^\S\n]|\\\n)+$/);
      if (token.kind === 'comment') expect(token.text, where).toMatch(/^#[^\n]*$/);
      if (token.kind === 'redirect') expect(token.text, where).toMatch(/^(?:\d*(?:<<<|<<-?|>>|>&|<&|<>|>\||>|<)|&>>?)+$/);
    };
    for (let n = 0; n < 1000; n++) {
      const source = randomCommand(next);
      for (const token of tokenizeShell(source)) check(token, source);
    }
  });

  it('an empty command gives no tokens', () => {
    expect(tokenizeShell('')).toEqual([]);
  });

  it('blank text is one space token', () => {
    expect(tokenizeShell(' \t ')).toEqual([{ kind: 'space', text: ' \t ' }]);
  });

  it('a very long command (about 400 000 characters) comes back whole', () => {
    const source = 'echo "a | b" $HOME -f --x=1 2>&1 | grep \'q\' && '.repeat(8000) + 'true';
    const tokens = tokenizeShell(source);
    expect(tokens.map((token) => token.text).join('')).toBe(source);
    expect(tokens.filter((token) => token.kind === 'operator' && token.text === '&&')).toHaveLength(8000);
  });

  it('a very long unterminated string is one string token', () => {
    const source = `echo "${'x '.repeat(100_000)}`;
    expect(seen(source)).toEqual(['command:echo', `string:"${'x '.repeat(100_000)}`]);
  });
});

describe('tokenizeShell: command words, flags and arguments', () => {
  it('the first word is the command, the rest are arguments', () => {
    expect(seen('ls /tmp foo')).toEqual(['command:ls', 'arg:/tmp', 'arg:foo']);
  });

  it('words starting with a dash are flags: -x, -rf, --long, --opt=value, and -- itself', () => {
    expect(seen('grep -i -rf --color --max-count=3 -- x')).toEqual([
      'command:grep',
      'flag:-i',
      'flag:-rf',
      'flag:--color',
      'flag:--max-count=3',
      'flag:--',
      'arg:x',
    ]);
  });

  it('a lone dash (stdin) is an argument, not a flag', () => {
    expect(seen('cat -')).toEqual(['command:cat', 'arg:-']);
  });

  it('a word in command position that looks like a flag is still the command', () => {
    expect(seen('-x')).toEqual(['command:-x']);
  });

  it('a=b cmd: the assignment is marked as such and cmd is the command', () => {
    expect(seen('a=b cmd')).toEqual(['assign:a=b', 'command:cmd']);
  });

  it('a=b after echo is an argument; after env (a wrapper) it is an assignment', () => {
    expect(seen('env a=b')).toEqual(['command:env', 'assign:a=b']);
    expect(seen('echo a=b')).toEqual(['command:echo', 'arg:a=b']);
  });

  it('=b and 1a=b are not assignments', () => {
    expect(seen('=b x')).toEqual(['command:=b', 'arg:x']);
    expect(seen('1a=b x')).toEqual(['command:1a=b', 'arg:x']);
  });

  it('sudo rm -rf /: sudo and rm are both commands, -rf a flag, / an argument', () => {
    expect(seen('sudo rm -rf /')).toEqual(['command:sudo', 'command:rm', 'flag:-rf', 'arg:/']);
  });

  it('FOO=1 sudo env BAR=2 rm x: assignments and wrappers all leave the command to come', () => {
    expect(seen('FOO=1 sudo env BAR=2 rm x')).toEqual(['assign:FOO=1', 'command:sudo', 'command:env', 'assign:BAR=2', 'command:rm', 'arg:x']);
  });

  it.each(['doas', 'time', 'nohup', 'exec', 'command', 'nice', 'xargs', 'builtin', '!'])('%s is a wrapper: the next word is the command', (wrapper) => {
    expect(seen(`${wrapper} rm x`)).toEqual([`command:${wrapper}`, 'command:rm', 'arg:x']);
  });

  it('a wrapper word as an argument does not make the next word a command', () => {
    expect(seen('echo sudo rm')).toEqual(['command:echo', 'arg:sudo', 'arg:rm']);
  });

  it('if/then/else/while/do: the word after each keyword is a command', () => {
    expect(kindsOf('if true; then rm x; else ls y; fi', 'rm')).toEqual(['command']);
    expect(kindsOf('if true; then rm x; else ls y; fi', 'ls')).toEqual(['command']);
    expect(kindsOf('while read l; do rm "$l"; done', 'rm')).toEqual(['command']);
    expect(kindsOf('if true; then rm x; fi', 'true')).toEqual(['command']);
  });
});

describe('tokenizeShell: strings, escapes and variables', () => {
  it('echo "a | b": the | inside double quotes is part of the string, not an operator', () => {
    expect(seen('echo "a | b"')).toEqual(['command:echo', 'string:"a | b"']);
  });

  it("single quotes hide operators too: echo 'a && b; c'", () => {
    expect(seen("echo 'a && b; c'")).toEqual(['command:echo', "string:'a && b; c'"]);
  });

  it('$( and backticks inside double quotes stay inside the string', () => {
    expect(seen('echo "$(date) `id`"')).toEqual(['command:echo', 'string:"$(date) `id`"']);
  });

  it('an escaped quote inside double quotes does not end the string', () => {
    expect(seen('echo "a\\"b" c')).toEqual(['command:echo', 'string:"a\\"b"', 'arg:c']);
  });

  it("a backslash inside single quotes escapes nothing: 'a\\' ends at the second quote", () => {
    expect(seen("echo 'a\\' b")).toEqual(['command:echo', "string:'a\\'", 'arg:b']);
  });

  it("ANSI-C quoting $'…' is a string, and \\' inside it does not end it", () => {
    expect(seen("echo $'a\\'b' c")).toEqual(['command:echo', "string:$'a\\'b'", 'arg:c']);
  });

  it('an unterminated double quote runs to the end as a string', () => {
    expect(seen('echo "abc | rm -rf /')).toEqual(['command:echo', 'string:"abc | rm -rf /']);
  });

  it('an unterminated single quote runs to the end as a string', () => {
    expect(seen("echo 'abc\nrm x")).toEqual(['command:echo', "string:'abc\nrm x"]);
  });

  it('a backslash-escaped quote outside quotes is plain text of the word', () => {
    expect(seen('echo \\"x')).toEqual(['command:echo', 'arg:\\"x']);
  });

  it('a backslash-escaped space keeps one word', () => {
    expect(seen('cat my\\ file x')).toEqual(['command:cat', 'arg:my\\ file', 'arg:x']);
  });

  it('a backslash-escaped operator is text: echo a\\;b', () => {
    expect(seen('echo a\\;b')).toEqual(['command:echo', 'arg:a\\;b']);
  });

  it('a trailing lone backslash is kept', () => {
    expect(seen('echo \\')).toEqual(['command:echo', 'arg:\\']);
  });

  it('a quoted part glued to plain text splits into arg and string runs of one word', () => {
    expect(seen('echo pre"mid"post')).toEqual(['command:echo', 'arg:pre', 'string:"mid"', 'arg:post']);
  });

  it('$NAME, ${NAME}, $1, $?, $$, $@ and $# are variables', () => {
    expect(seen('echo $HOME ${HOME} $1 $? $$ $@ $#')).toEqual([
      'command:echo',
      'variable:$HOME',
      'variable:${HOME}',
      'variable:$1',
      'variable:$?',
      'variable:$$',
      'variable:$@',
      'variable:$#',
    ]);
  });

  it('a variable glued to text: ${HOME}/x is a variable then the rest of the argument', () => {
    expect(seen('ls ${HOME}/x')).toEqual(['command:ls', 'variable:${HOME}', 'arg:/x']);
  });

  it('an unterminated ${ runs to the end as a variable', () => {
    expect(seen('echo ${HOME')).toEqual(['command:echo', 'variable:${HOME']);
  });

  it('a lone $ is a variable token (nothing after it)', () => {
    expect(seen('echo $')).toEqual(['command:echo', 'variable:$']);
  });

  it('a variable inside double quotes stays part of the string', () => {
    expect(seen('rm -rf "$HOME"')).toEqual(['command:rm', 'flag:-rf', 'string:"$HOME"']);
  });

  it('a variable as the command word is a variable', () => {
    expect(seen('$EDITOR file')).toEqual(['variable:$EDITOR', 'arg:file']);
  });

  it('unicode words are ordinary words', () => {
    expect(seen('echo 日本語 🎉 café')).toEqual(['command:echo', 'arg:日本語', 'arg:🎉', 'arg:café']);
  });
});

describe('tokenizeShell: operators and redirections', () => {
  it.each(['|', '&&', '||', ';', '&', '|&', '\n'])('%j ends a command: the next word is a command again', (op) => {
    const source = `ls -la ${op} rm x`;
    expect(seen(source)).toEqual(['command:ls', 'flag:-la', `operator:${op}`, 'command:rm', 'arg:x']);
  });

  it('operators need no spaces around them: ls|wc&&rm;x', () => {
    expect(seen('ls|wc&&rm;x')).toEqual(['command:ls', 'operator:|', 'command:wc', 'operator:&&', 'command:rm', 'operator:;', 'command:x']);
  });

  it('each operator is its own token, even twice in a row', () => {
    expect(tokenizeShell('a;;b').filter((token) => token.kind === 'operator')).toEqual([{ kind: 'operator', text: ';;' }]);
    expect(tokenizeShell('a ; ; b').filter((token) => token.kind === 'operator')).toHaveLength(2);
  });

  it('a trailing & (background) is an operator', () => {
    expect(seen('sleep 10 &')).toEqual(['command:sleep', 'arg:10', 'operator:&']);
  });

  it.each(['>', '>>', '<', '2>', '2>>', '&>', '&>>', '<<<', '>|', '<>'])('%s is a redirect and the word after it is its file, an argument', (op) => {
    expect(seen(`cmd a ${op} file b`)).toEqual(['command:cmd', 'arg:a', `redirect:${op}`, 'arg:file', 'arg:b']);
  });

  it('a redirect glued to its file: >out and 2>/dev/null', () => {
    expect(seen('cmd >out 2>/dev/null')).toEqual(['command:cmd', 'redirect:>', 'arg:out', 'redirect:2>', 'arg:/dev/null']);
  });

  it('2>&1: a redirect to a file descriptor, not a background operator', () => {
    expect(seen('cmd 2>&1 | tee log')).toEqual(['command:cmd', 'redirect:2>&', 'arg:1', 'operator:|', 'command:tee', 'arg:log']);
  });

  it('a redirection before the command: its file is an argument and the next word is the command', () => {
    expect(seen('>out ls -l')).toEqual(['redirect:>', 'arg:out', 'command:ls', 'flag:-l']);
    expect(seen('2>/dev/null rm -rf ~')).toEqual(['redirect:2>', 'arg:/dev/null', 'command:rm', 'flag:-rf', 'arg:~']);
    expect(seen('2>&1 cmd')).toEqual(['redirect:2>&', 'arg:1', 'command:cmd']);
  });

  it('a redirection between an assignment and the command still leaves the command to come', () => {
    expect(seen('A=1 >log make')).toEqual(['assign:A=1', 'redirect:>', 'arg:log', 'command:make']);
  });

  it('a redirect with no file before an operator leaves the operator an operator: cmd > | x', () => {
    expect(seen('cmd > | x')).toEqual(['command:cmd', 'redirect:>', 'operator:|', 'command:x']);
  });

  it('<<EOF: the heredoc marker is a redirect and EOF its word; the body is not parsed as a heredoc', () => {
    const source = 'cat <<EOF\nhello\nEOF';
    expect(seen(source).slice(0, 3)).toEqual(['command:cat', 'redirect:<<', 'arg:EOF']);
    expect(tokenizeShell(source).map((token) => token.text).join('')).toBe(source);
  });

  it('$( … ): the opener and closer are operators, the first word inside is a command', () => {
    expect(seen('echo $(whoami)')).toEqual(['command:echo', 'operator:$(', 'command:whoami', 'operator:)']);
  });

  it('the word after a closing ) is not a new command: echo $(date) x', () => {
    expect(seen('echo $(date) x')).toEqual(['command:echo', 'operator:$(', 'command:date', 'operator:)', 'arg:x']);
  });

  it('a substitution glued to text: pre$(cmd)post', () => {
    expect(seen('echo pre$(cmd)post')).toEqual(['command:echo', 'arg:pre', 'operator:$(', 'command:cmd', 'operator:)', 'arg:post']);
  });

  it('backticks: the first word inside is a command', () => {
    expect(seen('echo `id -u`')).toEqual(['command:echo', 'operator:`', 'command:id', 'flag:-u', 'operator:`']);
  });

  it('the word after a closing backtick is not a new command: cp `which x` /tmp', () => {
    expect(seen('cp `which x` /tmp')).toEqual(['command:cp', 'operator:`', 'command:which', 'arg:x', 'operator:`', 'arg:/tmp']);
  });

  it('two backtick substitutions in a row each start with a command', () => {
    expect(seen('echo `a` `b` c')).toEqual(['command:echo', 'operator:`', 'command:a', 'operator:`', 'operator:`', 'command:b', 'operator:`', 'arg:c']);
  });

  it('a subshell (cd a; ls): each command inside is a command', () => {
    expect(seen('(cd a; ls) | wc')).toEqual(['operator:(', 'command:cd', 'arg:a', 'operator:;', 'command:ls', 'operator:)', 'operator:|', 'command:wc']);
  });
});

describe('tokenizeShell: comments and lines', () => {
  it('# after a space starts a comment to the end of the line', () => {
    expect(seen('ls # list | rm')).toEqual(['command:ls', 'comment:# list | rm']);
  });

  it('the line after a comment starts with a command', () => {
    expect(seen('# note\nrm x')).toEqual(['comment:# note', 'operator:\n', 'command:rm', 'arg:x']);
  });

  it('# inside a word is not a comment: echo a#b', () => {
    expect(seen('echo a#b')).toEqual(['command:echo', 'arg:a#b']);
  });

  it('# inside quotes is not a comment', () => {
    expect(seen('echo "# no"')).toEqual(['command:echo', 'string:"# no"']);
  });

  it('a backslash-newline continues the line: it is blank space, and the flag after it is still a flag', () => {
    expect(tokenizeShell('ls \\\n  -la')).toEqual([
      { kind: 'command', text: 'ls' },
      { kind: 'space', text: ' \\\n  ' },
      { kind: 'flag', text: '-la' },
    ]);
  });

  it('a newline is an operator and each line begins with a command', () => {
    expect(seen('cd /tmp\nrm -rf x')).toEqual(['command:cd', 'arg:/tmp', 'operator:\n', 'command:rm', 'flag:-rf', 'arg:x']);
  });
});
