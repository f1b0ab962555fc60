import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from '../../../server/http/routes/openapi.js';
import { toAnthropicTool, toOpenAITool } from '../../../server/tools/formats.js';
import { ToolRegistry, type RegisteredTool } from '../../../server/tools/registry.js';
import { toDraft2020 } from '../../../server/tools/schema-convert.js';
import type { ObjectSchema } from '../../../server/tools/types.js';
import { compileValidator } from '../../../server/tools/validator.js';

/**
 * Draft-04, draft-07 and 2019-09 schemas rewritten as 2020-12 for the formats that read 2020-12 (OpenAI and Ollama
 * parameters, Anthropic input_schema, OpenAPI 3.1), keyword by keyword: each converted schema is a valid 2020-12
 * schema that accepts and rejects the same sample instances as the original, checked with Ajv in both dialects.
 */

type Schema = ObjectSchema;
const D4 = 'http://json-schema.org/draft-04/schema#';
const D7 = 'http://json-schema.org/draft-07/schema#';
const D2019 = 'https://json-schema.org/draft/2019-09/schema';
const metaCheck = new Ajv2020({ strict: false });

/** Converts, checks the result is 2020-12 (no $schema, valid against the 2020-12 meta-schema) and equivalent on `samples`. */
function same(original: Schema, samples: unknown[]): Schema {
  const converted = toDraft2020(original);
  expect(converted.$schema).toBeUndefined();
  expect(metaCheck.validateSchema(converted), JSON.stringify(converted)).toBe(true);
  const before = compileValidator(original);
  const after = compileValidator(converted);
  const verdicts = samples.map((sample) => {
    const verdict = before(structuredClone(sample)).ok;
    expect(after(structuredClone(sample)).ok, `${JSON.stringify(sample)} against ${JSON.stringify(converted)}`).toBe(verdict);
    return verdict;
  });
  // Samples on both sides, or the comparison proves nothing.
  expect(verdicts).toContain(true);
  expect(verdicts).toContain(false);
  return converted;
}

describe('converting a schema to 2020-12, keyword by keyword', () => {
  it('renames definitions to $defs and rewrites every reference into them', () => {
    const converted = same(
      {
        $schema: D7,
        type: 'object',
        definitions: { point: { type: 'object', properties: { x: { type: 'number' } }, required: ['x'] }, 'a/b~c': { type: 'string' } },
        properties: { p: { $ref: '#/definitions/point' }, x: { $ref: '#/definitions/point/properties/x' }, s: { $ref: '#/definitions/a~1b~0c' } },
      },
      [{ p: { x: 1 }, x: 2, s: 'q' }, { p: {} }, { x: 'two' }, { s: 1 }, {}],
    );
    expect(converted.definitions).toBeUndefined();
    expect(Object.keys(converted.$defs as object)).toEqual(['point', 'a/b~c']);
    expect(converted.properties).toEqual({
      p: { $ref: '#/$defs/point' },
      x: { $ref: '#/$defs/point/properties/x' },
      s: { $ref: '#/$defs/a~1b~0c' },
    });
  });

  it('leaves a property called "definitions" and references to it alone', () => {
    const converted = same(
      { $schema: D7, type: 'object', properties: { definitions: { type: 'string' }, copy: { $ref: '#/properties/definitions' } } },
      [{ definitions: 'a', copy: 'b' }, { copy: 1 }],
    );
    expect(converted.properties).toEqual({ definitions: { type: 'string' }, copy: { $ref: '#/properties/definitions' } });
  });

  it('keeps definitions beside an existing $defs (no clash, the references still resolve)', () => {
    const converted = same(
      { $schema: D7, type: 'object', $defs: { a: { type: 'string' } }, definitions: { a: { type: 'number' } }, properties: { s: { $ref: '#/$defs/a' }, n: { $ref: '#/definitions/a' } } },
      [{ s: 'x', n: 1 }, { s: 1 }, { n: 'x' }],
    );
    expect(converted.definitions).toEqual({ a: { type: 'number' } });
  });

  it("turns draft-04's boolean exclusiveMinimum and exclusiveMaximum into numbers", () => {
    const converted = same(
      {
        $schema: D4,
        type: 'object',
        properties: {
          open: { type: 'number', minimum: 0, exclusiveMinimum: true, maximum: 10, exclusiveMaximum: true },
          closed: { type: 'number', minimum: 0, exclusiveMinimum: false, maximum: 10, exclusiveMaximum: false },
        },
      },
      [{ open: 5, closed: 0 }, { open: 0 }, { open: 10 }, { closed: 10 }, { closed: -1 }, { open: 10.5 }],
    );
    expect(converted.properties).toEqual({
      open: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 10 },
      closed: { type: 'number', minimum: 0, maximum: 10 },
    });
  });

  it("turns draft-04's id into $id, and a #name id into an $anchor its references still find", () => {
    const converted = same(
      { $schema: D4, id: 'https://tools.example/t.json', type: 'object', definitions: { s: { id: '#str', type: 'string' } }, properties: { a: { $ref: '#str' }, b: { $ref: 'https://tools.example/t.json#/definitions/s' } } },
      [{ a: 'x', b: 'y' }, { a: 1 }, { b: 2 }],
    );
    expect(converted).toMatchObject({ $id: 'https://tools.example/t.json', $defs: { s: { $anchor: 'str', type: 'string' } } });
    expect(converted.id).toBeUndefined();
    expect(converted.properties).toEqual({ a: { $ref: '#str' }, b: { $ref: '#/$defs/s' } });
    const d7 = same({ $schema: D7, type: 'object', definitions: { n: { $id: '#num', type: 'number' } }, properties: { a: { $ref: '#num' } } }, [{ a: 1 }, { a: 'x' }]);
    expect(d7.$defs).toEqual({ n: { $anchor: 'num', type: 'number' } });
  });

  it('turns the array form of items into prefixItems, with additionalItems as items', () => {
    const tuple = (extra: object) => ({ $schema: D7, type: 'object' as const, properties: { t: { type: 'array', items: [{ type: 'string' }, { type: 'number' }], ...extra } } });
    const closed = same(tuple({ additionalItems: false }), [{ t: ['a', 1] }, { t: ['a'] }, { t: ['a', 1, true] }, { t: [1, 'a'] }]);
    expect(closed.properties).toEqual({ t: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: false } });
    const typed = same(tuple({ additionalItems: { type: 'boolean' } }), [{ t: ['a', 1, true, false] }, { t: ['a', 1, 'x'] }]);
    expect((typed.properties as { t: object }).t).toMatchObject({ items: { type: 'boolean' } });
    const open = same(tuple({}), [{ t: ['a', 1, 'anything'] }, { t: [1] }]);
    expect((open.properties as { t: object }).t).not.toHaveProperty('items');
  });

  it('drops additionalItems where its dialect ignores it (items is one schema), keeping items', () => {
    const converted = same(
      { $schema: D7, type: 'object', properties: { l: { type: 'array', items: { type: 'string' }, additionalItems: false } } },
      [{ l: ['a', 'b', 'c'] }, { l: [1] }],
    );
    expect(converted.properties).toEqual({ l: { type: 'array', items: { type: 'string' } } });
  });

  it('rewrites references into a tuple and into additionalItems', () => {
    const converted = same(
      {
        $schema: D7,
        type: 'object',
        properties: {
          t: { type: 'array', items: [{ type: 'string' }, { type: 'integer', minimum: 3 }], additionalItems: { type: 'boolean' } },
          second: { $ref: '#/properties/t/items/1' },
          rest: { $ref: '#/properties/t/additionalItems' },
        },
      },
      [{ second: 4, rest: true }, { second: 2 }, { rest: 'x' }],
    );
    expect(converted.properties).toMatchObject({ second: { $ref: '#/properties/t/prefixItems/1' }, rest: { $ref: '#/properties/t/items' } });
  });

  it('splits dependencies into dependentRequired and dependentSchemas', () => {
    const converted = same(
      { $schema: D7, type: 'object', properties: { a: {}, b: {}, c: { type: 'number' } }, dependencies: { a: ['b'], c: { required: ['a'] } } },
      [{ a: 1, b: 2 }, { a: 1 }, { c: 1, a: 1, b: 1 }, { c: 1 }, {}],
    );
    expect(converted).toMatchObject({ dependentRequired: { a: ['b'] }, dependentSchemas: { c: { required: ['a'] } } });
    expect(converted.dependencies).toBeUndefined();
  });

  it("turns 2019-09's $recursiveRef into a $dynamicRef to the root", () => {
    const converted = same(
      { $schema: D2019, $recursiveAnchor: true, type: 'object', properties: { name: { type: 'string' }, kids: { type: 'array', items: { $recursiveRef: '#' } } } },
      [{ name: 'a', kids: [{ name: 'b', kids: [] }] }, { kids: [{ kids: [{ name: 1 }] }] }],
    );
    expect(converted.$recursiveAnchor).toBeUndefined();
    expect(JSON.stringify(converted)).not.toContain('$recursive');
  });

  it('converts inside every place a subschema sits (anyOf, not, if/then/else, patternProperties, contains)', () => {
    const num = { type: 'number', minimum: 1, exclusiveMinimum: true };
    same(
      {
        $schema: D4,
        type: 'object',
        properties: {
          any: { anyOf: [num, { type: 'string' }] },
          neg: { not: num },
          all: { allOf: [num] },
          one: { oneOf: [num, { type: 'boolean' }] },
        },
        patternProperties: { '^n_': num },
        additionalProperties: num,
      },
      [{ any: 2, neg: 1, all: 2, one: true, n_x: 1.5, extra: 3 }, { any: 1 }, { neg: 2 }, { all: 1 }, { one: 1 }, { n_x: 1 }, { extra: 0.5 }],
    );
    same(
      { $schema: D7, type: 'object', properties: { l: { type: 'array', contains: { type: 'array', items: [{ const: 'x' }], additionalItems: false } } }, if: { required: ['a'] }, then: { properties: { a: { type: 'string' } } }, else: { required: ['l'] } },
      [{ a: 'x' }, { a: 1 }, { l: [['x']] }, { l: [['x', 'y']] }, {}],
    );
  });

  it('leaves instance data alone: enum, const, default and examples that look like schemas', () => {
    const converted = same(
      { $schema: D7, type: 'object', properties: { v: { enum: [{ definitions: 1, items: [1] }, 'plain'], default: { items: [2] } } }, examples: [{ id: 'x' }] },
      [{ v: 'plain' }, { v: { definitions: 1, items: [1] } }, { v: 'other' }],
    );
    expect(converted.properties).toEqual({ v: { enum: [{ definitions: 1, items: [1] }, 'plain'], default: { items: [2] } } });
    expect(converted.examples).toEqual([{ id: 'x' }]);
  });

  it('returns a 2020-12 schema as it is, and drops only a $schema of another dialect', () => {
    const modern: Schema = { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object' };
    expect(toDraft2020(modern)).toBe(modern);
    const plain: Schema = { type: 'object', definitions: { a: {} } };
    expect(toDraft2020(plain)).toBe(plain);
    expect(toDraft2020({ $schema: D7, type: 'object', properties: { a: { $schema: D7, type: 'string' } } })).toEqual({ type: 'object', properties: { a: { type: 'string' } } });
  });

  it('converts every input schema of the 14 recorded servers into a valid, equivalent 2020-12 schema', () => {
    const fixture = JSON.parse(readFileSync(resolve(import.meta.dirname, '../mcp/fixtures/published-tools.json'), 'utf8')) as {
      servers: Record<string, { tools: { name: string; inputSchema: Schema }[] }>;
    };
    let count = 0;
    for (const { tools } of Object.values(fixture.servers)) {
      for (const tool of tools) {
        const converted = toDraft2020(tool.inputSchema);
        expect(metaCheck.validateSchema(converted), tool.name).toBe(true);
        expect(converted.$schema).toBeUndefined();
        const before = compileValidator(tool.inputSchema);
        const after = compileValidator(converted);
        for (const sample of [{}, { path: 'x' }, { path: 1 }, { entities: [] }, { invented: true }]) {
          expect(after(structuredClone(sample)).ok, `${tool.name} on ${JSON.stringify(sample)}`).toBe(before(structuredClone(sample)).ok);
        }
        count += 1;
      }
    }
    expect(count).toBe(125);
  });
});

describe('re-exporting a draft-07 tool to each format', () => {
  const registry = new ToolRegistry();
  const published: Schema = {
    $schema: D7,
    type: 'object',
    definitions: { node: { type: 'object', properties: { name: { type: 'string', minLength: 1 }, children: { type: 'array', items: { $ref: '#/definitions/node' } } }, required: ['name'] } },
    properties: { tree: { $ref: '#/definitions/node' }, pair: { type: 'array', items: [{ type: 'string' }, { type: 'number' }], additionalItems: false }, depth: { type: 'integer', minimum: 0 } },
    required: ['tree'],
  };
  const tool: RegisteredTool = registry.register({ name: 'trees', description: 'Takes a tree.', parameters: published, category: 'c', risk: 'safe', annotations: {}, handler: () => null });
  const samples = [
    { tree: { name: 'a', children: [{ name: 'b' }] }, pair: ['x', 1], depth: 2 },
    { tree: { name: 'a', children: [{ name: '' }] } },
    { tree: { name: 'a' }, pair: ['x', 1, 2] },
    { tree: { name: 'a' }, depth: -1 },
    { tree: { name: 'a' }, invented: 1 },
    {},
  ];
  const expected = samples.map((s) => tool.validate(structuredClone(s)).ok);

  it('gives OpenAI (and Ollama) parameters and Anthropic an input_schema in 2020-12 with every constraint kept', () => {
    for (const schema of [toOpenAITool(tool).function.parameters, toAnthropicTool(tool).input_schema]) {
      expect(schema.$schema).toBeUndefined();
      expect(schema).toMatchObject({ $defs: { node: expect.any(Object) }, properties: { tree: { $ref: '#/$defs/node' } }, additionalProperties: false });
      const validate = compileValidator(schema);
      expect(samples.map((s) => validate(structuredClone(s)).ok)).toEqual(expected);
    }
    expect(expected).toEqual([true, false, false, false, false, false]);
  });

  it('leaves the schema the server published as it was (what MCP clients get)', () => {
    expect(tool.parameters.$schema).toBe(D7);
    expect(tool.parameters.definitions).toBeDefined();
  });

  it('embeds it in OpenAPI 3.1 with its $defs as components and every $ref pointing at something', () => {
    const other = registry.register({ name: 'loops', description: 'Refers to itself.', category: 'c', risk: 'safe', annotations: {}, handler: () => null, parameters: { type: 'object', properties: { next: { $ref: '#' }, n: { type: 'number' } } } });
    const document = openApiDocument([tool, other], '1.0.0', 'http://127.0.0.1:1') as unknown as Record<string, unknown> & { paths: Record<string, any>; components: { schemas: Record<string, unknown> } };
    const body = document.paths['/tools/trees/execute'].post.requestBody.content['application/json'].schema;
    expect(body.$schema).toBeUndefined();
    expect(body.$defs).toBeUndefined();
    expect(body.properties.tree).toEqual({ $ref: '#/components/schemas/trees.node' });
    expect(document.components.schemas['trees.node']).toMatchObject({ properties: { children: { items: { $ref: '#/components/schemas/trees.node' } } } });
    const loops = document.paths['/tools/loops/execute'].post.requestBody.content['application/json'].schema;
    expect(loops.properties.next.$ref).toBe('#/paths/~1tools~1loops~1execute/post/requestBody/content/application~1json/schema');
    // Every reference in the document resolves within it.
    const refs: string[] = [];
    JSON.stringify(document, (key, value) => (key === '$ref' && refs.push(value), value));
    for (const ref of refs) expect(pointer(document, ref), ref).toBeDefined();
    // And the embedded schema, followed through the document, accepts and rejects what the tool does.
    const ajv = new Ajv2020({ strict: false, validateSchema: false });
    ajv.addSchema({ ...document, $id: 'pincer:/openapi.json' });
    const validate = ajv.compile({ $ref: `pincer:/openapi.json${'#/paths/~1tools~1trees~1execute/post/requestBody/content/application~1json/schema'}` });
    expect(samples.map((s) => validate(structuredClone(s)))).toEqual(expected);
    const loop = ajv.compile({ $ref: `pincer:/openapi.json${loops.properties.next.$ref}` });
    expect([loop({ next: { next: { n: 1 } } }), loop({ next: { n: 'x' } })]).toEqual([true, false]);
  });
});

function pointer(document: unknown, ref: string): unknown {
  let node = document as Record<string, unknown> | undefined;
  for (const segment of ref.replace(/^#\/?/, '').split('/').filter(Boolean)) {
    node = node?.[decodeURIComponent(segment).replaceAll('~1', '/').replaceAll('~0', '~')] as Record<string, unknown> | undefined;
  }
  return node;
}
