import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Language, Parser } from 'web-tree-sitter';

let loading: Promise<Parser> | undefined;

/**
 * The bash grammar (tree-sitter-bash, as WASM: nothing native to build), loaded on first use and shared by every
 * analyzer in the process; concurrent first callers wait for the same load. A failed load is retried next time.
 */
export function loadBashParser(): Promise<Parser> {
  loading ??= (async () => {
    await Parser.init();
    // The package's native binding is not built; only its .wasm file is used, found next to its package.json.
    const require = createRequire(import.meta.url);
    const wasm = join(dirname(require.resolve('tree-sitter-bash/package.json')), 'tree-sitter-bash.wasm');
    const parser = new Parser();
    parser.setLanguage(await Language.load(wasm));
    return parser;
  })();
  const pending = loading;
  pending.catch(() => {
    if (loading === pending) loading = undefined;
  });
  return pending;
}

/**
 * Removes backslash-newline line continuations the way bash does — outside single quotes and comments — so that
 * `find . -de\<newline>lete` is read as the `find . -delete` bash runs. (The grammar reads the pair as a space.)
 */
export function joinLineContinuations(source: string): string {
  let out = '';
  let state: 'normal' | 'single' | 'double' | 'comment' = 'normal';
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (state === 'comment') {
      out += c;
      if (c === '\n') state = 'normal';
      continue;
    }
    if (state === 'single') {
      out += c;
      if (c === "'") state = 'normal';
      continue;
    }
    if (c === '\\') {
      const next = source[i + 1];
      if (next === '\n') {
        i++;
        continue;
      }
      out += c + (next ?? '');
      i++;
      continue;
    }
    if (state === 'double') {
      out += c;
      if (c === '"') state = 'normal';
      continue;
    }
    if (c === "'") state = 'single';
    else if (c === '"') state = 'double';
    else if (c === '#' && (out === '' || /[\s;&|()<>]/.test(out[out.length - 1]!))) state = 'comment';
    out += c;
  }
  return out;
}

/** The command inside the first unescaped `$(…)` or backquote pair of a text, if any. */
export function hiddenSubstitution(text: string): string | undefined {
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === '`') {
      let j = i + 1;
      while (j < text.length && text[j] !== '`') j += text[j] === '\\' ? 2 : 1;
      return text.slice(i + 1, j).replace(/\\([`$\\])/g, '$1');
    }
    if (c === '$' && text[i + 1] === '(') {
      let depth = 0;
      let j = i + 1;
      for (; j < text.length; j++) {
        if (text[j] === '(') depth++;
        else if (text[j] === ')' && --depth === 0) break;
      }
      return text.slice(i + 2, j).replace(/^\(|\)$/g, '');
    }
  }
  return undefined;
}
