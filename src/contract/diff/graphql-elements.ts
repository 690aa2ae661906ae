import { coordinateOfInspectorPath } from '../../deprecations/graphql-deprecations.js';
import type { UsedElement } from './changes.js';

/**
 * The schema coordinate a GraphQL change touches, as the usage counts name it (docs/usage.md): a field `Course.slug`,
 * an argument `Query.course(id:)`, an input field `CourseFilter.state`, an enum value `CourseState.DRAFT`, or a type
 * `Course` for a change to the whole type (removed, an interface or union member dropped). Directive definitions and
 * the schema's root types are reached by no coordinate a client selects: no element.
 */
export function graphqlElements(kind: string, where: string): UsedElement[] {
  if (where === '' || where.startsWith('@') || where === '(schema)' || kind.startsWith('SCHEMA_') || (kind.startsWith('DIRECTIVE_') && !kind.startsWith('DIRECTIVE_USAGE_'))) return [];
  // A directive used on an element (`Course.slug.@tag`): the element it is used on.
  const element = where.includes('.@') ? where.slice(0, where.indexOf('.@')) : where;
  // The deprecation and scope rows already use coordinates; the inspector's argument paths are `Type.field.argument`.
  const name = /\(|^[^.]+\.[^.]+$|^[^.]+$/.test(element) ? element : coordinateOfInspectorPath(kind.startsWith('FIELD_ARGUMENT_') ? kind : 'FIELD_ARGUMENT_', element);
  return [{ api: 'graphql', name }];
}
