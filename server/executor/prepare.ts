import { GatewayError, refuse } from '../errors.js';
import type { PolicyDecision } from '../decision.js';
import type { ClientAccess } from '../policy/access.js';
import type { Policy, PolicyInput } from '../policy/policy.js';
import type { RegisteredTool, ToolRegistry } from '../tools/registry.js';
import { closestNames } from '../util/closest.js';
import type { CallRequest } from './call.js';

/** What resolving and validating a call needs of it. */
export type PrepareRequest = Pick<CallRequest, 'tool' | 'arguments' | 'client' | 'owner' | 'argumentsError'>;

/** A call whose tool exists, is enabled and open to its client, with arguments that passed the tool's schema. */
export interface Prepared {
  tool: RegisteredTool;
  args: Record<string, unknown>;
}

/** Resolve and validate: the steps before policy, shared by real calls and dry runs. */
export function prepareCall(registry: ToolRegistry, access: ClientAccess | undefined, request: PrepareRequest): Prepared | GatewayError {
  const tool = registry.get(request.tool);
  if (!tool) {
    const held = registry.held(request.tool);
    return held ? refuse.toolHeld(request.tool, held.message, held.source) : refuse.toolNotFound(request.tool, closestUsable(registry, access, request, request.tool));
  }
  if (!registry.isEnabled(tool.definition.name)) return refuse.toolDisabled(request.tool);
  const denied = access?.refusal(request.client, tool.definition.name, request.owner === true);
  if (denied) return denied;
  if (request.argumentsError !== undefined) {
    return new GatewayError('INVALID_ARGUMENTS', `Invalid arguments for "${request.tool}": ${request.argumentsError}`, {
      errors: [{ path: '', message: request.argumentsError }],
    });
  }
  const args = request.arguments === undefined ? {} : request.arguments;
  if (args === null || typeof args !== 'object' || Array.isArray(args)) {
    return new GatewayError('INVALID_ARGUMENTS', `Arguments for "${request.tool}" must be a JSON object.`, {
      errors: [{ path: '', message: 'arguments must be an object' }],
    });
  }
  const checked = tool.validate(args); // applies schema defaults in place
  if (!checked.ok) {
    return new GatewayError(
      'INVALID_ARGUMENTS',
      `Invalid arguments for "${request.tool}": ${checked.problems.map((p) => p.message).join('; ')}.`,
      { errors: checked.problems },
    );
  }
  return { tool, args: args as Record<string, unknown> };
}

/** The tools nearest a name that does not exist, among those this caller may call: a suggestion never reveals a tool outside its set. */
export function closestUsable(registry: ToolRegistry, access: ClientAccess | undefined, caller: { client: string; owner?: boolean | undefined }, name: string): string[] {
  const usable = access ? access.usable(registry, caller.client, caller.owner === true) : registry.list().filter((t) => registry.isEnabled(t.definition.name));
  return closestNames(name, usable.map((t) => t.definition.name));
}

/** The policy's verdict; a policy that fails cannot say yes, so the call falls to a human. */
export async function decide(policy: Policy, input: PolicyInput): Promise<PolicyDecision> {
  try {
    return await policy.decide(input);
  } catch (error) {
    console.error(`pincer: the policy failed on a call to ${input.tool.definition.name}:`, error);
    return {
      decision: 'ask',
      rule: 'policy:error',
      reason: `The safety check for ${input.tool.definition.name} failed (${(error as Error).message}), so a person must decide.`,
    };
  }
}
