import { isEnumType, isInputObjectType, isInterfaceType, isObjectType, type GraphQLSchema } from 'graphql';
import { isCalendarDate, type Deprecation } from './deprecation.js';

/**
 * The member API's deprecation convention (docs/versioning.md): the built-in `@deprecated` with a reason that names the
 * replacement and the sunset date in two fixed sentences, e.g.
 *
 *   slug: String! @deprecated(reason: "Use `Course.handle` instead. Sunset 2027-06-30.")
 *
 * A reason rather than a directive of our own, so clients read both facts through introspection (`deprecationReason`)
 * and codegen, graphql-http and the served SDL see nothing new.
 */

const NAME = '[_A-Za-z][_0-9A-Za-z]*';
const REPLACEMENT = new RegExp(`\\bUse \`?(${NAME}(?:\\.${NAME}(?:\\(${NAME}:\\))?)?)\`? instead\\b`);
const SUNSET = /\bSunset (\d{4}-\d{2}-\d{2})\b/;

export function parseDeprecationReason(reason: string): { sunset: string | null; replacement: string | null } {
  const sunset = SUNSET.exec(reason)?.[1];
  return { sunset: sunset !== undefined && isCalendarDate(sunset) ? sunset : null, replacement: REPLACEMENT.exec(reason)?.[1] ?? null };
}

/** Every deprecated field, argument, input field and enum value of a schema, keyed by schema coordinate. */
export function graphqlDeprecations(schema: GraphQLSchema): Deprecation[] {
  const found: Deprecation[] = [];
  const add = (key: string, reason: string | null | undefined) => {
    if (reason === null || reason === undefined) return;
    found.push({ api: 'graphql', key, where: key, reason, ...parseDeprecationReason(reason) });
  };
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__')) continue;
    if (isObjectType(type) || isInterfaceType(type)) {
      for (const field of Object.values(type.getFields())) {
        add(`${type.name}.${field.name}`, field.deprecationReason);
        for (const argument of field.args) add(`${type.name}.${field.name}(${argument.name}:)`, argument.deprecationReason);
      }
    } else if (isInputObjectType(type)) {
      for (const field of Object.values(type.getFields())) add(`${type.name}.${field.name}`, field.deprecationReason);
    } else if (isEnumType(type)) {
      for (const value of type.getValues()) add(`${type.name}.${value.name}`, value.deprecationReason);
    }
  }
  return found.sort((a, b) => a.key.localeCompare(b.key));
}

/** Whether a schema coordinate (`Type`, `Type.field`, `Type.field(arg:)`, `Enum.VALUE`) names something in the schema. */
export function resolvesCoordinate(schema: GraphQLSchema, coordinate: string): boolean {
  const match = /^(\w+)(?:\.(\w+)(?:\((\w+):\))?)?$/.exec(coordinate);
  if (!match) return false;
  const [, typeName = '', memberName, argumentName] = match;
  const type = schema.getType(typeName);
  if (type === undefined || type === null) return false;
  if (memberName === undefined) return true;
  if (isEnumType(type)) return argumentName === undefined && type.getValue(memberName) !== undefined;
  if (!isObjectType(type) && !isInterfaceType(type) && !isInputObjectType(type)) return false;
  const member = type.getFields()[memberName];
  if (member === undefined) return false;
  if (argumentName === undefined) return true;
  return 'args' in member && member.args.some((argument) => argument.name === argumentName);
}

/** The coordinate @graphql-inspector/core's change path names (`Type.field.arg` for an argument). */
export function coordinateOfInspectorPath(changeType: string, path: string): string {
  if (changeType.startsWith('FIELD_ARGUMENT_')) {
    const [typeName, fieldName, argumentName] = path.split('.');
    if (argumentName !== undefined) return `${typeName}.${fieldName}(${argumentName}:)`;
  }
  return path;
}
