import { expect } from 'chai';
import type { JsonSchemaType } from '@modelcontextprotocol/server';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';
import { checkedJsonSchema } from '../src/mcp/portable-schema.js';
import { toolsOfVariant } from '../src/mcp/server.js';
import { variantProfile } from '../src/variant.js';

type Schema = Record<string, unknown>;

/** A value the schema accepts, where one is easy to write (null otherwise: the caller then leaves the tool out). */
function sample(schema: Schema): unknown {
  if (Array.isArray(schema.anyOf)) return sample(schema.anyOf[0] as Schema);
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      return Object.fromEntries(Object.entries(properties).map(([key, property]) => [key, sample(property)]));
    }
    case 'array':
      return schema.items === undefined ? [] : [sample(schema.items as Schema), sample(schema.items as Schema)];
    case 'string':
      if (schema.format === 'date-time') return '2026-03-01T09:30:00Z';
      if (schema.format === 'uri') return 'https://school.example/a';
      return 'x'.repeat(Math.max(1, Number(schema.minLength ?? 1)));
    case 'integer':
    case 'number':
      return Math.max(0, Number(schema.minimum ?? 0));
    case 'boolean':
      return true;
    default:
      return null;
  }
}

/** Every value reached by replacing one value of `value` (at any depth) with each of `candidates`, or removing it. */
function* oneChangeFrom(value: unknown, candidates: readonly unknown[]): Generator<unknown> {
  for (const candidate of candidates) yield candidate;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) for (const changed of oneChangeFrom(value[i], candidates)) yield value.map((item, j) => (j === i ? changed : item));
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      const { [key]: _removed, ...rest } = value as Record<string, unknown>;
      yield rest;
      for (const changed of oneChangeFrom(item, candidates)) yield { ...value, [key]: changed };
    }
  }
}

const CANDIDATES = [null, 'x', '', '2026-03-01T09:30:00Z', '2026-02-30T09:30:00Z', '2026-03-01T09:30:00.5+01:00', 0, -1, 1.5, 2 ** 60, true, {}, [], { extra: 1 }];

describe('MCP tool results: the schema they are checked against', () => {
  it('accepts exactly what the published output schema accepts, for every tool of either variant', () => {
    const validators = new AjvJsonSchemaValidator();
    let compared = 0;
    for (const variant of ['A', 'B'] as const) {
      for (const tool of toolsOfVariant(variantProfile(variant))) {
        const published = tool.definition.outputSchema as JsonSchemaType;
        const checkPublished = validators.getValidator(published);
        const checkChecked = validators.getValidator(checkedJsonSchema(published));
        const base = sample(published as Schema);
        if (!checkPublished(base).valid) continue;
        for (const value of oneChangeFrom(base, CANDIDATES)) {
          expect(checkChecked(value).valid, `${tool.name}: ${JSON.stringify(value).slice(0, 300)}`).to.equal(checkPublished(value).valid);
          compared += 1;
        }
      }
    }
    // The syllabus tool and most others have a sample: the comparison is not vacuous.
    expect(compared).to.be.greaterThan(5000);
  });

  it('checks a nullable value of one type as a type array, and leaves a nullable enum or constant as it is', () => {
    const dateTime = { type: 'string', format: 'date-time', pattern: '^\\d{4}' };
    expect(checkedJsonSchema({ type: 'object', properties: { at: { description: 'When.', anyOf: [dateTime, { type: 'null' }] } } })).to.deep.equal({
      type: 'object',
      properties: { at: { type: ['string', 'null'], format: 'date-time', pattern: '^\\d{4}', description: 'When.' } },
    });
    const nullableEnum = { anyOf: [{ type: 'string', enum: ['a', 'b'] }, { type: 'null' }] };
    expect(checkedJsonSchema(nullableEnum)).to.deep.equal(nullableEnum);
    const nullableConst = { anyOf: [{ type: 'null' }, { type: 'string', const: 'a' }] };
    expect(checkedJsonSchema(nullableConst)).to.deep.equal(nullableConst);
  });
});
