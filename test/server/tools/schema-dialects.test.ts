import { describe, expect, it } from 'vitest';
import { linearOutputValidator } from '../../../server/mcp/client/output-validator.js';
import { ToolRegistry } from '../../../server/tools/registry.js';
import { dialectOf, SchemaRefusal } from '../../../server/tools/schema-dialects.js';
import { compileValidator } from '../../../server/tools/validator.js';
import type { ObjectSchema } from '../../../server/tools/types.js';

/**
 * Tool schemas are compiled in the dialect their `$schema` names (draft-04, draft-07, 2019-09, 2020-12; none means
 * 2020-12), with every instance's safeguards; references inside the schema resolve, references out of it are refused.
 */

type Schema = ObjectSchema;
const DRAFT_07 = 'http://json-schema.org/draft-07/schema#';

const ok = (schema: Schema, args: unknown) => expect(compileValidator(schema)(args), JSON.stringify(args)).toEqual({ ok: true });
const bad = (schema: Schema, args: unknown) => {
  const result = compileValidator(schema)(args);
  expect(result.ok, JSON.stringify(args)).toBe(false);
  return result.ok ? [] : result.problems;
};
const registerProblem = (parameters: Schema): string => {
  try {
    new ToolRegistry().register({ name: 't', description: 'd', parameters, category: 'c', risk: 'safe', annotations: {}, handler: () => null });
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('the schema was accepted');
};

describe('picking the dialect from $schema', () => {
  it.each([
    ['http://json-schema.org/draft-07/schema#', 'draft-07'],
    ['http://json-schema.org/draft-07/schema', 'draft-07'],
    ['https://json-schema.org/draft-07/schema#', 'draft-07'],
    ['https://json-schema.org/draft-07/schema', 'draft-07'],
    ['http://json-schema.org/draft-04/schema#', 'draft-04'],
    ['https://json-schema.org/draft-04/schema', 'draft-04'],
    ['https://json-schema.org/draft/2019-09/schema', '2019-09'],
    ['http://json-schema.org/draft/2019-09/schema#', '2019-09'],
    ['https://json-schema.org/draft/2020-12/schema', '2020-12'],
    ['https://json-schema.org/draft/2020-12/schema#', '2020-12'],
  ])('reads %s as %s, and a schema with it compiles', (uri, dialect) => {
    expect(dialectOf({ $schema: uri })).toBe(dialect);
    ok({ $schema: uri, type: 'object', properties: { a: { type: 'string' } } }, { a: 'x' });
  });

  it('takes a schema without $schema as 2020-12 (prefixItems is enforced)', () => {
    expect(dialectOf({ type: 'object' })).toBe('2020-12');
    const schema: Schema = { type: 'object', properties: { pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }] } } };
    ok(schema, { pair: ['a', 1] });
    bad(schema, { pair: [1, 'a'] });
  });

  it('refuses an unknown $schema, naming it and the dialects it knows', () => {
    const message = registerProblem({ $schema: 'http://json-schema.org/draft-03/schema#', type: 'object' });
    expect(message).toContain('"http://json-schema.org/draft-03/schema#"');
    expect(message).toMatch(/draft-04, draft-07, 2019-09, 2020-12/);
    expect(() => dialectOf({ $schema: 42 })).toThrow(SchemaRefusal);
    expect(() => dialectOf({ $schema: 'https://example.com/my-dialect' })).toThrow(/names no JSON Schema dialect/);
  });

  it('checks draft-07 the way draft-07 means it (the array form of items is a tuple, additionalItems applies)', () => {
    const schema: Schema = { $schema: DRAFT_07, type: 'object', properties: { t: { type: 'array', items: [{ type: 'string' }], additionalItems: false } } };
    ok(schema, { t: ['a'] });
    bad(schema, { t: ['a', 'b'] });
    bad(schema, { t: [1] });
  });

  it('checks draft-04 the way draft-04 means it (exclusiveMinimum is a boolean beside minimum)', () => {
    const schema: Schema = {
      $schema: 'http://json-schema.org/draft-04/schema#',
      type: 'object',
      properties: { n: { type: 'number', minimum: 0, exclusiveMinimum: true } },
    };
    ok(schema, { n: 0.5 });
    expect(bad(schema, { n: 0 })[0]!.message).toMatch(/"n" must be > 0/);
  });

  it('checks 2019-09 (dependentRequired and $recursiveRef)', () => {
    const schema: Schema = {
      $schema: 'https://json-schema.org/draft/2019-09/schema',
      $recursiveAnchor: true,
      type: 'object',
      properties: { child: { $recursiveRef: '#' }, name: { type: 'string' } },
      dependentRequired: { name: ['child'] },
    };
    ok(schema, { name: 'a', child: { child: {} } });
    bad(schema, { name: 'a' });
    bad(schema, { child: { name: 3, child: {} } });
  });

  it('keeps every safeguard in every dialect: linear patterns, linear uniqueItems, formats, defaults, the closed object', () => {
    for (const $schema of ['http://json-schema.org/draft-04/schema#', DRAFT_07, 'https://json-schema.org/draft/2019-09/schema', undefined]) {
      const base = { ...($schema && { $schema }), type: 'object' as const };
      // Security: a lookahead would need the backtracking engine; refused in every dialect, not compiled by it.
      expect(registerProblem({ ...base, properties: { a: { type: 'string', pattern: '^(?=a)' } } }), String($schema)).toMatch(/linear-time engine/);
      const catastrophic: Schema = { ...base, properties: { a: { type: 'string', pattern: '^(a|aa)+$' } } };
      bad(catastrophic, { a: `${'a'.repeat(50_000)}b` });
      const unique: Schema = { ...base, properties: { list: { type: 'array', uniqueItems: true } } };
      expect(bad(unique, { list: [{ a: 1, b: 2 }, { b: 2, a: 1 }] })[0]!.message).toMatch(/items ## 0 and 1 are identical/);
      bad({ ...base, properties: { at: { type: 'string', format: 'date-time' } } }, { at: 'yesterday' });
      const defaults: Schema = { ...base, properties: { n: { type: 'number', default: 3 } } };
      const args: Record<string, unknown> = {};
      ok(defaults, args);
      expect(args.n).toBe(3);
    }
    const registered = new ToolRegistry().register({
      name: 't', description: 'd', category: 'c', risk: 'safe', annotations: {}, handler: () => null,
      parameters: { $schema: DRAFT_07, type: 'object', properties: { a: { type: 'string' } } },
    });
    expect(registered.validate({ a: 'x', invented: 1 })).toEqual({ ok: false, problems: [{ path: '', message: 'unknown property "invented" in arguments' }] });
    // What the server published stays as it was, its $schema included.
    expect(registered.parameters.$schema).toBe(DRAFT_07);
  });

  it('caps the problems a draft-07 schema reports', () => {
    const properties = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`p${i}`, { type: 'string' }]));
    const problems = bad({ $schema: DRAFT_07, type: 'object', properties }, Object.fromEntries(Object.keys(properties).map((k) => [k, 1])));
    expect(problems).toHaveLength(21);
    expect(problems[20]!.message).toBe('and 10 more problems like these');
  });
});

describe('references inside a schema', () => {
  it('resolves $defs, definitions and a draft-07 $ref to them', () => {
    const point = { type: 'object', properties: { x: { type: 'number' } }, required: ['x'] };
    ok({ type: 'object', $defs: { point }, properties: { p: { $ref: '#/$defs/point' } } }, { p: { x: 1 } });
    bad({ type: 'object', $defs: { point }, properties: { p: { $ref: '#/$defs/point' } } }, { p: {} });
    const draft07: Schema = { $schema: DRAFT_07, type: 'object', definitions: { point }, properties: { p: { $ref: '#/definitions/point' } } };
    ok(draft07, { p: { x: 1 } });
    expect(bad(draft07, { p: { x: 'one' } })[0]!.message).toMatch(/"p\.x" must be number/);
  });

  it('follows a recursive $ref (a tree of any depth)', () => {
    const tree: Schema = {
      $schema: DRAFT_07,
      type: 'object',
      definitions: { node: { type: 'object', properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/definitions/node' } } } } },
      properties: { root: { $ref: '#/definitions/node' } },
    };
    ok(tree, { root: { name: 'a', children: [{ name: 'b', children: [{ name: 'c', children: [] }] }] } });
    expect(bad(tree, { root: { children: [{ children: [{ name: 7 }] }] } })[0]!.path).toBe('/root/children/0/children/0/name');
    ok({ type: 'object', properties: { self: { $ref: '#' } } }, { self: { self: {} } });
  });

  it("follows a reference to the schema's own $id", () => {
    const schema: Schema = { $id: 'https://tools.example/echo.json', type: 'object', $defs: { s: { type: 'string' } }, properties: { a: { $ref: 'https://tools.example/echo.json#/$defs/s' } } };
    ok(schema, { a: 'x' });
    bad(schema, { a: 1 });
  });

  it.each([
    ['a remote URL', 'https://schemas.example/point.json'],
    ['a relative file', 'point.json#/x'],
    ['a JSON Schema meta-schema registered in Ajv', 'http://json-schema.org/draft-07/schema#'],
    ['a URN', 'urn:pincer:other'],
  ])('refuses a $ref to %s, saying where it is and what to do', (_what, ref) => {
    const message = registerProblem({ type: 'object', properties: { p: { $ref: ref } } });
    expect(message).toContain(JSON.stringify(ref));
    expect(message).toMatch(/at \/properties\/p\/\$ref/);
    expect(message).toMatch(/points outside the schema.*"\$defs"/);
  });

  it('refuses a remote reference hidden in a property named like a data keyword, in $defs, or under an unknown keyword', () => {
    expect(registerProblem({ type: 'object', properties: { enum: { $ref: 'https://x.example/a' } } })).toMatch(/points outside/);
    expect(registerProblem({ $schema: DRAFT_07, type: 'object', definitions: { a: { $ref: 'https://x.example/a' } } })).toMatch(/at \/definitions\/a/);
    expect(registerProblem({ type: 'object', 'x-extra': { deep: [{ $ref: 'https://x.example/a' }] } })).toMatch(/points outside/);
    expect(registerProblem({ type: 'object', $dynamicRef: 'https://x.example/a' })).toMatch(/points outside/);
  });

  it('refuses a schema nested too deep to check for references, instead of leaving its deepest reference unchecked', () => {
    let deep: Record<string, unknown> = { $ref: 'http://json-schema.org/draft-07/schema#' };
    for (let i = 0; i < 300; i++) deep = { type: 'object', properties: { a: deep } };
    expect(registerProblem(deep as Schema)).toMatch(/nests deeper than 256 levels/);
  });

  it('treats a $ref inside enum, const, default or examples as data, and a property named $ref as a property', () => {
    const schema: Schema = {
      type: 'object',
      properties: { $ref: { type: 'string' }, v: { enum: [{ $ref: 'https://x.example' }], default: { $ref: 'https://x.example' } } },
      examples: [{ $ref: 'https://x.example' }],
    };
    ok(schema, { $ref: 'a', v: { $ref: 'https://x.example' } });
    bad(schema, { v: { $ref: 'elsewhere' } });
  });

  it("cannot reach a meta-schema by taking its $id: the schema's own root wins, and a part the root lacks is not found", () => {
    const META = 'http://json-schema.org/draft-07/schema';
    const own: Schema = { $schema: DRAFT_07, $id: META, type: 'object', definitions: { s: { type: 'string' } }, properties: { a: { $ref: `${META}#/definitions/s` } } };
    ok(own, { a: 'x' });
    bad(own, { a: 1 });
    // nonNegativeInteger is in draft-07's meta-schema, not in this schema.
    expect(registerProblem({ $schema: DRAFT_07, $id: META, type: 'object', properties: { a: { $ref: `${META}#/definitions/nonNegativeInteger` } } })).toMatch(/can't resolve reference/);
    // An embedded $id equal to a meta-schema's is refused rather than merged with it.
    expect(registerProblem({ $schema: DRAFT_07, type: 'object', properties: { a: { $id: META, $ref: '#/definitions/nonNegativeInteger' } } })).toMatch(/resolves to more than one schema/);
  });

  it("does not let one schema's embedded $id reach the next schema compiled", () => {
    const first: Schema = { type: 'object', properties: { a: { $id: 'https://shared.example/a', type: 'string' } } };
    ok(first, { a: 'x' });
    // The same $id with other content compiles (it is not "resolves to more than one schema"), and means its own.
    const second: Schema = { type: 'object', properties: { a: { $id: 'https://shared.example/a', type: 'number' } } };
    ok(second, { a: 1 });
    bad(second, { a: 'x' });
    // Nor is it found by a reference from another schema.
    expect(registerProblem({ type: 'object', properties: { b: { $ref: 'https://shared.example/a' } } })).toMatch(/points outside/);
  });
});

describe("imported tools' output schemas", () => {
  const check = (schema: Record<string, unknown>, value: unknown) => linearOutputValidator().getValidator(schema)(value);

  it('checks structuredContent against a draft-07, 2020-12 or draft-04 output schema', () => {
    const shape = { type: 'object', properties: { content: { type: 'string' } }, required: ['content'], additionalProperties: false };
    for (const $schema of [DRAFT_07, 'https://json-schema.org/draft/2020-12/schema', 'http://json-schema.org/draft-04/schema#', undefined]) {
      const schema = { ...shape, ...($schema && { $schema }) };
      expect(check(schema, { content: 'x' }), String($schema)).toMatchObject({ valid: true, data: { content: 'x' } });
      expect(check(schema, { content: 1 })).toMatchObject({ valid: false, errorMessage: expect.stringContaining('data/content must be string') });
    }
  });

  it('resolves references in an output schema and does not fill in defaults', () => {
    const schema = { $schema: DRAFT_07, type: 'object', definitions: { s: { type: 'string' } }, properties: { a: { $ref: '#/definitions/s' }, b: { type: 'number', default: 1 } } };
    const value = { a: 'x' };
    expect(check(schema, value)).toMatchObject({ valid: true });
    expect(value).toEqual({ a: 'x' });
    expect(check(schema, { a: 2 })).toMatchObject({ valid: false });
  });

  it('fails results with the reason when the output schema names an unknown dialect or a remote $ref', () => {
    expect(check({ $schema: 'https://example.com/x', type: 'object' }, {})).toMatchObject({ valid: false, errorMessage: expect.stringMatching(/^its outputSchema cannot be checked: .*"https:\/\/example.com\/x"/) });
    expect(check({ type: 'object', properties: { a: { $ref: 'https://x.example/a' } } }, {})).toMatchObject({ valid: false, errorMessage: expect.stringMatching(/points outside the schema/) });
  });
});

describe('embedded resources', () => {
  it('resolves a reference inside an embedded relative $id against that subschema', () => {
    const schema: Schema = {
      type: 'object',
      properties: { item: { $id: 'item.json', type: 'object', $defs: { n: { type: 'number' } }, properties: { n: { $ref: '#/$defs/n' } } } },
    };
    ok(schema, { item: { n: 1 } });
    bad(schema, { item: { n: 'x' } });
    ok({ $schema: 'http://json-schema.org/draft-04/schema#', type: 'object', properties: { self: { $ref: '#' } } }, { self: {} });
  });
});
