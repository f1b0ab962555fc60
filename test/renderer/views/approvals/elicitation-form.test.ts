import { describe, expect, it } from 'vitest';
import { contentOf, formFields, initialValues } from '../../../../renderer/src/views/approvals/elicitation-form.js';

/** The form an imported MCP server's question is answered with, read from its requested schema. */

const SCHEMA = {
  type: 'object',
  properties: {
    seat: { type: 'string', title: 'Seat', description: 'Where you sit', enum: ['window', 'aisle'], enumNames: ['Window', 'Aisle'] },
    class: { type: 'string', oneOf: [{ const: 'y', title: 'Economy' }, { const: 'j', title: 'Business' }] },
    count: { type: 'integer', title: 'Travellers', minimum: 1, maximum: 9, default: 1 },
    weight: { type: 'number', title: 'Bag (kg)' },
    email: { type: 'string', title: 'E-mail', format: 'email' },
    site: { type: 'string', format: 'uri' },
    day: { type: 'string', format: 'date' },
    name: { type: 'string', minLength: 2, maxLength: 5 },
    vip: { type: 'boolean', title: 'Lounge access', default: true },
    meals: { type: 'array', items: { anyOf: [{ const: 'veg', title: 'Vegetarian' }, { const: 'kosher', title: 'Kosher' }] } },
  },
  required: ['seat', 'count'],
};

describe('formFields', () => {
  it('one field per property, in the server\'s order, with its title, help, kind, input type and choices', () => {
    const fields = formFields(SCHEMA);
    expect(fields.map((f) => [f.name, f.kind, f.input, f.required])).toEqual([
      ['seat', 'choice', 'text', true],
      ['class', 'choice', 'text', false],
      ['count', 'integer', 'text', true],
      ['weight', 'number', 'text', false],
      ['email', 'text', 'email', false],
      ['site', 'text', 'url', false],
      ['day', 'text', 'date', false],
      ['name', 'text', 'text', false],
      ['vip', 'boolean', 'text', false],
      ['meals', 'choices', 'text', false],
    ]);
    expect(fields[0]).toMatchObject({ label: 'Seat', help: 'Where you sit', options: [{ value: 'window', label: 'Window' }, { value: 'aisle', label: 'Aisle' }] });
    // A titled choice shows the title and sends the value.
    expect(fields[1]!.options).toEqual([{ value: 'y', label: 'Economy', raw: 'y' }, { value: 'j', label: 'Business', raw: 'j' }]);
    expect(fields[2]).toMatchObject({ label: 'Travellers', min: 1, max: 9 });
    // A field without a title is labelled with its name.
    expect(fields[5]!.label).toBe('site');
  });

  it('a schema that is not a form gives no fields (nothing half-shown)', () => {
    expect(formFields(undefined)).toEqual([]);
    expect(formFields({ type: 'object' })).toEqual([]);
  });
});

describe('initialValues', () => {
  it('start from the server\'s defaults, else empty', () => {
    expect(initialValues(SCHEMA)).toMatchObject({ seat: '', count: '1', vip: true, meals: [] });
  });
});

describe('contentOf', () => {
  const fields = formFields(SCHEMA);
  const filled = (over: Record<string, unknown>) => ({ ...initialValues(SCHEMA), seat: 'aisle', ...over }) as Record<string, string | number | boolean | string[]>;

  it('sends each value as its type, leaving out empty optional fields', () => {
    expect(contentOf(fields, filled({ count: '2', weight: '7.5', email: 'me@example.com', meals: ['veg'] }))).toEqual({
      content: { seat: 'aisle', count: 2, weight: 7.5, email: 'me@example.com', vip: true, meals: ['veg'] },
    });
  });

  it('names each field that is missing or out of range', () => {
    const result = contentOf(fields, filled({ seat: '', count: '12', name: 'x' }));
    expect(result).toEqual({
      problems: [
        { field: 'seat', message: 'Seat is required' },
        { field: 'count', message: 'Travellers must be from 1 to 9' },
        { field: 'name', message: 'name must be at least 2 characters' },
      ],
    });
  });

  it('a number input holding a number (as Svelte binds it) is sent as that number', () => {
    expect(contentOf(fields, filled({ count: 3 }))).toEqual({ content: { seat: 'aisle', count: 3, vip: true } });
  });

  it('an integer field refuses a fraction, a number field refuses words', () => {
    expect(contentOf(fields, filled({ count: '1.5' }))).toEqual({ problems: [{ field: 'count', message: 'Travellers must be a whole number' }] });
    expect(contentOf(fields, filled({ weight: 'heavy' }))).toEqual({ problems: [{ field: 'weight', message: 'Bag (kg) must be a number' }] });
  });

  it('a choice outside the options is refused (a tampered select)', () => {
    expect(contentOf(fields, filled({ seat: 'roof' }))).toEqual({ problems: [{ field: 'seat', message: 'Seat: choose one of the options' }] });
  });
});
