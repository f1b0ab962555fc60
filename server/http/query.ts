import { refuse, type GatewayError } from '../errors.js';

/**
 * What is wrong with a query's keys: ones the route does not know, and ones given more than once (the 'simple'
 * query parser makes a repeated key an array). `noun` is what the route calls a key in its messages.
 */
export function queryKeyProblems(query: Record<string, unknown>, known: readonly string[], noun: string): string[] {
  const problems: string[] = [];
  for (const [key, value] of Object.entries(query)) {
    if (!known.includes(key)) problems.push(`unknown ${noun} "${key}" (known: ${known.join(', ')})`);
    else if (typeof value !== 'string') problems.push(`"${key}" may be given once`);
  }
  return problems;
}

/** The 400 for a query with problems: every one in the message, and one by one in details.errors. */
export function badQuery(problems: string[], details: Record<string, unknown> = {}): GatewayError {
  return refuse.badRequest(`Bad query: ${problems.join('; ')}.`, { errors: problems.map((message) => ({ message })), ...details });
}
