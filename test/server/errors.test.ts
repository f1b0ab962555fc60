import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERRORS, GatewayError, ToolError, errorBody, refuse, type ErrorName } from '../../server/errors.js';
import { PACKAGE_ROOT } from '../../server/version.js';

const names = Object.keys(ERRORS) as ErrorName[];

describe('the error catalogue', () => {
  it('gives every name its own code', () => {
    const byCode = new Map<number, string[]>();
    for (const name of names) byCode.set(ERRORS[name].code, [...(byCode.get(ERRORS[name].code) ?? []), name]);
    const shared = [...byCode.entries()].filter(([, owners]) => owners.length > 1);
    expect(shared).toEqual([]);
  });

  it('keeps the codes clients already rely on', () => {
    expect(Object.fromEntries(names.map((n) => [n, ERRORS[n].code]))).toMatchObject({
      TOOL_NOT_FOUND: 600,
      TOOL_DISABLED: 601,
      INVALID_ARGUMENTS: 602,
      TOOL_EXECUTION_ERROR: 603,
      TOOL_TIMEOUT: 604,
      POLICY_DENIED: 605,
      APPROVAL_REQUIRED: 606,
      APPROVAL_DENIED: 607,
      APPROVAL_TIMEOUT: 608,
      OUTPUT_TOO_LARGE: 609,
      CALL_CANCELLED: 610,
      TOOL_HELD: 611,
      FILES_CHANGED: 670,
      INVALID_REQUEST: 400,
      AUTH_MISSING: 401,
      FORBIDDEN: 403,
      NOT_FOUND: 404,
      REQUEST_TIMEOUT: 408,
      PAYLOAD_TOO_LARGE: 413,
      UNSUPPORTED_MEDIA_TYPE: 415,
      HEADERS_TOO_LARGE: 431,
      INTERNAL_ERROR: 500,
    });
  });

  it('answers each name with one status: 200 for a tool failure, an error status for a refusal', () => {
    for (const name of names) {
      const { status, code, meaning } = ERRORS[name];
      expect(name).toMatch(/^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/);
      expect(status === 200 || (status >= 400 && status <= 599), `${name}: ${status}`).toBe(true);
      // Below 600 a code is the HTTP status it has always been.
      if (code < 600) expect(code, name).toBe(status);
      expect(meaning.length, name).toBeGreaterThan(10);
    }
    expect(refuse.conversationNotFound('cv_1').toBody()).toEqual({ name: 'CONVERSATION_NOT_FOUND', code: 631, message: 'No conversation "cv_1".', details: {} });
    expect(refuse.conversationNotFound('cv_1').status).toBe(404);
    expect(new ToolError('INVALID_ARGUMENTS', 'bad').status).toBe(400);
    expect(errorBody('SETTING_LOCKED', 'x').code).toBe(632);
  });

  it('does not compile an uncatalogued name, a tool failure as a refusal, or a status of its own', () => {
    // Never run: the @ts-expect-error lines fail the typecheck the day they compile.
    const neverRun = () => [
      // @ts-expect-error a typo is not a name
      new GatewayError('CONVERSATION_NOT_FUOND', 'x'),
      // @ts-expect-error a tool failure (answered 200) is not a refusal
      new GatewayError('FILE_NOT_FOUND', 'x'),
      // @ts-expect-error the status comes from the catalogue
      new GatewayError('NOT_FOUND', 404, 'x'),
      // @ts-expect-error any string is not a name
      new ToolError('SOMETHING_WENT_WRONG' as string, 'x'),
      // @ts-expect-error nor in a body
      errorBody('HTTP_500', 'x'),
    ];
    expect(neverRun).toBeTypeOf('function');
  });
});

/** Every .ts file under a folder. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('the catalogue is the only source of error names', () => {
  // Places a name is given or compared: constructors, bodies, `name:` of an answer, comparisons.
  const patterns = [
    /new (?:GatewayError|ToolError|PluginCallError)\(\s*'([A-Z0-9_]+)'/g,
    /errorBody\(\s*'([A-Z0-9_]+)'/g,
    /errorName\s*[!=]==\s*'([A-Z0-9_]+)'/g,
    /error\.name\s*[!=]==\s*'([A-Z0-9_]+)'/g,
    /\bname:\s*'([A-Z][A-Z0-9]*_[A-Z0-9_]+)'/g,
  ];

  it('finds no name in server/ that the catalogue lacks', () => {
    const server = join(PACKAGE_ROOT, 'server');
    const found = new Map<string, string>();
    for (const file of sources(server)) {
      const text = readFileSync(file, 'utf8');
      for (const pattern of patterns) {
        for (const match of text.matchAll(pattern)) found.set(match[1]!, relative(PACKAGE_ROOT, file));
      }
    }
    // The scan must see the names in use, or it proves nothing.
    expect(found.size).toBeGreaterThan(60);
    const strays = [...found].filter(([name]) => !(name in ERRORS)).map(([name, file]) => `${name} (${file})`);
    expect(strays).toEqual([]);
  });

  it('leaves no second table of codes or fallback code in server/', () => {
    const offenders = sources(join(PACKAGE_ROOT, 'server'))
      .filter((file) => !file.endsWith(join('server', 'errors.ts')))
      .filter((file) => /\bcode:\s*(?:[4-8]\d\d)\b|ERROR_CODES/.test(readFileSync(file, 'utf8')))
      .map((file) => relative(PACKAGE_ROOT, file));
    expect(offenders).toEqual([]);
  });
});

describe('docs/errors.md', () => {
  const rows = readFileSync(join(PACKAGE_ROOT, 'docs', 'errors.md'), 'utf8')
    .split('\n')
    .map((line) => /^\| `([A-Z0-9_]+)` \| (200 \(result\)|\d{3}) \| (\d+) \| (.*) \|$/.exec(line))
    .filter((match) => match !== null)
    .map(([, name, status, code, meaning]) => ({ name: name!, status: status === '200 (result)' ? 200 : Number(status), code: Number(code), meaning: meaning!.replace(/\\\|/g, '|') }));

  it('has one row per catalogue entry and nothing else', () => {
    expect(rows.map((row) => row.name).sort()).toEqual([...names].sort());
  });

  it.each(names)('says what the catalogue says of %s', (name) => {
    const row = rows.find((r) => r.name === name);
    const { status, code, meaning } = ERRORS[name];
    expect(row).toEqual({ name, status, code, meaning });
  });
});
