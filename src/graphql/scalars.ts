import { GraphQLError, GraphQLScalarType, Kind } from 'graphql';
import type { Resolvers } from '../../generated/graphql/resolvers.js';
import { dateTime } from '../shared/time.js';

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;


function parseInstant(value: unknown): string {
  if (typeof value !== 'string' || !ISO_INSTANT.test(value) || Number.isNaN(Date.parse(value))) {
    throw new GraphQLError('DateTime must be an RFC 3339 date-time string, e.g. 2026-03-01T09:30:00Z');
  }
  return dateTime(new Date(value));
}

/** RFC 3339 instants in UTC with whole seconds (schema/base.graphql). Resolvers may hand over a Date or an ISO string. */
export const DateTimeScalar = new GraphQLScalarType({
  name: 'DateTime',
  serialize: (value) => (value instanceof Date ? dateTime(value) : parseInstant(value)),
  parseValue: parseInstant,
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.STRING) throw new GraphQLError('DateTime must be a string literal');
    return parseInstant(ast.value);
  },
});

function parseMoney(value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw new GraphQLError('Money must be an integer number of minor units');
  return value;
}

/** Integer minor units, any safe integer (wider than GraphQL's 32-bit Int). */
export const MoneyScalar = new GraphQLScalarType({
  name: 'Money',
  serialize: (value) => parseMoney(typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value),
  parseValue: parseMoney,
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.INT) throw new GraphQLError('Money must be an integer literal');
    return parseMoney(Number(ast.value));
  },
});

export const scalarResolvers: Resolvers = { DateTime: DateTimeScalar, Money: MoneyScalar };
