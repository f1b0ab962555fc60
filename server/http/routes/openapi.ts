import { Router } from 'express';
import type { ClientAccess } from '../../policy/access.js';
import { identityOf } from '../identity.js';
import type { RegisteredTool, ToolRegistry } from '../../tools/registry.js';
import { parametersIn2020 } from '../../tools/formats.js';
import { DATA_KEYWORDS, MAP_KEYWORDS, unescapePointer } from '../../tools/schema-dialects.js';
import { encodePointerSegment } from '../../tools/schema-convert.js';

/**
 * OpenAPI 3.1 with one literal path and operationId per enabled tool, the shape Open WebUI and mcpo read: each
 * operation becomes a tool named after its operationId, and it POSTs the bare arguments object.
 */
export function openApiRoutes(registry: ToolRegistry, access: ClientAccess, version: string): Router {
  const router = Router();
  router.get('/openapi.json', (req, res) => {
    const who = identityOf(res);
    const { tools } = access.visible(registry, who.name, who.kind === 'owner');
    res.json(openApiDocument(tools, version, `http://${req.headers.host}`));
  });
  return router;
}

const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Failure' } } },
});

export function openApiDocument(tools: RegisteredTool[], version: string, serverUrl: string) {
  const paths: Record<string, unknown> = {};
  const lifted: Record<string, unknown> = {};
  for (const tool of tools) {
    const def = tool.definition;
    const path = `/tools/${def.name}/execute`;
    const at = `#/paths/${encodePointerSegment(path)}/post/requestBody/content/${encodePointerSegment('application/json')}/schema`;
    const schema = embedSchema(parametersIn2020(tool), def.name, at, lifted);
    paths[path] = {
      post: {
        operationId: def.name,
        summary: def.annotations.title ?? def.name,
        description: def.description,
        tags: [def.category],
        requestBody: { required: true, content: { 'application/json': { schema } } },
        responses: {
          '200': {
            description: 'The tool ran: `success` says whether it succeeded, `error` says why not.',
            content: {
              'application/json': {
                schema: { oneOf: [{ $ref: '#/components/schemas/Success' }, { $ref: '#/components/schemas/Failure' }] },
              },
            },
          },
          '400': errorResponse('The arguments do not match the schema (INVALID_ARGUMENTS) or are not JSON (INVALID_JSON).'),
          '401': errorResponse('The client token is missing or wrong.'),
          '403': errorResponse('The policy or the owner refused the call.'),
          '404': errorResponse('The tool does not exist.'),
          '409': errorResponse('The tool is turned off.'),
        },
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Pincer tools',
      version,
      description: 'Tools on this machine, called through the Pincer gateway. Every call is checked by policy and recorded.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: serverUrl, description: 'This Pincer gateway' }],
    security: [{ bearer: [] }, { apiKey: [] }],
    tags: [...new Set(tools.map((t) => t.definition.category))].sort().map((name) => ({ name, description: `${name} tools` })),
    paths,
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'A Pincer client token.' },
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'A Pincer client token.' },
      },
      schemas: {
        ...lifted,
        Success: {
          type: 'object',
          required: ['success', 'result', 'call_id'],
          properties: {
            success: { const: true },
            result: { description: 'What the tool returned.' },
            duration_ms: { type: 'number' },
            cached: { type: 'boolean' },
            call_id: { type: 'string' },
          },
        },
        Failure: {
          type: 'object',
          required: ['success', 'error'],
          properties: {
            success: { const: false },
            error: {
              type: 'object',
              required: ['name', 'code', 'message'],
              properties: {
                name: { type: 'string', description: 'A stable error name such as TOOL_NOT_FOUND.' },
                code: { type: 'integer' },
                message: { type: 'string', description: 'What went wrong and what to do about it.' },
                details: { type: 'object' },
              },
            },
            duration_ms: { type: 'number' },
            call_id: { type: 'string' },
          },
        },
      },
    },
  };
}

type Json = Record<string, unknown>;

/**
 * A tool's 2020-12 schema as it sits inside the document: its `$defs` move to `components/schemas` (as
 * `<tool>.<name>`, where OpenAPI tools look for shared schemas) and every reference into the schema is rewritten to
 * where its target now is, since inside the document `#` is the document, not the schema. Its `$id` goes (it would
 * make the references resolve against the schema again), and so does its `$schema`.
 */
function embedSchema(schema: Json, tool: string, at: string, components: Json): Json {
  // OpenAPI 3.1's own dialect is 2020-12's: the schema needs no `$schema` of its own.
  const { $defs, $id, $schema: _dialect, ...body } = schema;
  const ownId = typeof $id === 'string' ? $id.replace(/#.*$/, '') : '';
  const names = new Map<string, string>();
  if ($defs && typeof $defs === 'object' && !Array.isArray($defs)) {
    for (const name of Object.keys($defs)) {
      let component = `${tool}.${name.replace(/[^A-Za-z0-9._-]/g, '_')}`;
      while (component in components || component === 'Success' || component === 'Failure') component += '_';
      names.set(name, component);
    }
  }
  const rewrite = (original: string): string => {
    const ref = ownId && (original === ownId || original.startsWith(`${ownId}#`)) ? original.slice(ownId.length) || '#' : original;
    if (ref !== '#' && !ref.startsWith('#/')) return ref;
    const segments = ref === '#' ? [] : ref.slice(2).split('/');
    if (segments[0] === '$defs' && segments.length > 1) {
      const component = names.get(unescapePointer(safeDecode(segments[1]!)));
      if (component) return ['#/components/schemas', encodePointerSegment(component), ...segments.slice(2)].join('/');
    }
    return [at, ...segments].join('/');
  };
  for (const [name, component] of names) {
    const def = ($defs as Json)[name];
    components[component] = def && typeof def === 'object' && typeof (def as Json).$id === 'string' ? def : rewriteRefs(def, rewrite, 0);
  }
  return rewriteRefs(body, rewrite, 0) as Json;
}

/** A copy of `node` with each `$ref`/`$dynamicRef` of its resource rewritten (an embedded `$id` starts another). */
function rewriteRefs(node: unknown, rewrite: (ref: string) => string, depth: number): unknown {
  if (!node || typeof node !== 'object' || depth > 256) return node;
  if (Array.isArray(node)) return node.map((item) => rewriteRefs(item, rewrite, depth + 1));
  if (depth > 0 && typeof (node as Json).$id === 'string') return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node as Json)) {
    if ((key === '$ref' || key === '$dynamicRef') && typeof value === 'string') out[key] = rewrite(value);
    else if (DATA_KEYWORDS.has(key)) out[key] = value;
    else if (MAP_KEYWORDS.has(key) && value && typeof value === 'object' && !Array.isArray(value)) {
      out[key] = Object.fromEntries(Object.entries(value as Json).map(([name, sub]) => [name, rewriteRefs(sub, rewrite, depth + 1)]));
    } else out[key] = rewriteRefs(value, rewrite, depth + 1);
  }
  return out;
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
