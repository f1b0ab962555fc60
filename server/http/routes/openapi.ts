import { Router } from 'express';
import type { ClientAccess } from '../../policy/access.js';
import { identityOf } from '../identity.js';
import type { RegisteredTool, ToolRegistry } from '../../tools/registry.js';

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
  for (const tool of tools) {
    const def = tool.definition;
    paths[`/tools/${def.name}/execute`] = {
      post: {
        operationId: def.name,
        summary: def.annotations.title ?? def.name,
        description: def.description,
        tags: [def.category],
        requestBody: { required: true, content: { 'application/json': { schema: tool.parameters } } },
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
