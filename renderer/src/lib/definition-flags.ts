/** Where a poisoning flag was found in a tool's definition, as the owner reads it. */
export function whereInWords(where: string): string {
  if (where === 'description') return 'in its description';
  if (where === 'title') return 'in its title';
  const [schema, ...path] = where.split('.');
  const which = schema === 'outputSchema' ? 'output' : 'input';
  return `in its ${which} schema, at ${path.join('.') || 'the top'}`;
}
