import {
  astFromValue,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  isUnionType,
  print,
  type GraphQLArgument,
  type GraphQLDirective,
  type GraphQLEnumType,
  type GraphQLField,
  type GraphQLInputField,
  type GraphQLInputObjectType,
  type GraphQLInterfaceType,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLScalarType,
  type GraphQLSchema,
  type GraphQLType,
  type GraphQLUnionType,
} from 'graphql';
import type { ScopeMap } from '../graphql/scopes.js';
import { escapeHtml } from '../pages/html.js';

/** The anchor of a named type on the page: `#type-Viewer`. */
export function typeAnchor(name: string): string {
  return `type-${name}`;
}

function fieldAnchor(typeName: string, fieldName: string): string {
  return `${typeName}.${fieldName}`;
}

/**
 * A description as HTML: escaped, paragraphs at blank lines, `backtick spans` as <code>. No other markdown: the
 * SDL's descriptions are plain sentences.
 */
export function descriptionHtml(text: string | null | undefined): string {
  if (!text) return '';
  return text
    .trim()
    .split(/\n\s*\n/)
    .map((paragraph) => `<p>${escapeHtml(paragraph.trim()).replace(/`([^`]+)`/g, '<code>$1</code>')}</p>`)
    .join('\n');
}

function typeRef(type: GraphQLType): string {
  if (isNonNullType(type)) return `${typeRef(type.ofType)}!`;
  if (isListType(type)) return `[${typeRef(type.ofType)}]`;
  return `<a href="#${typeAnchor(type.name)}">${escapeHtml(type.name)}</a>`;
}

function defaultValue(input: GraphQLArgument | GraphQLInputField): string {
  if (input.defaultValue === undefined) return '';
  const ast = astFromValue(input.defaultValue, input.type);
  return ast ? ` = ${escapeHtml(print(ast))}` : '';
}

function deprecation(reason: string | null | undefined): string {
  return reason === null || reason === undefined ? '' : ` <span class="deprecated">Deprecated: ${escapeHtml(reason)}</span>`;
}

function scopeBadge(scopes: readonly string[] | undefined): string {
  if (!scopes || scopes.length === 0) return '';
  return ` <span class="scope" title="The token needs one of these scopes">Scope: ${scopes.map((scope) => `<code>${escapeHtml(scope)}</code>`).join(' or ')}</span>`;
}

function argumentList(args: readonly GraphQLArgument[]): string {
  if (args.length === 0) return '';
  const items = args.map(
    (arg) =>
      `<li><code>${escapeHtml(arg.name)}: ${typeRef(arg.type)}${defaultValue(arg)}</code>${deprecation(arg.deprecationReason)}${arg.description ? ` ${descriptionHtml(arg.description)}` : ''}</li>`,
  );
  return `<p>Arguments:</p>\n<ul class="args">\n${items.join('\n')}\n</ul>`;
}

function fieldList(type: GraphQLObjectType | GraphQLInterfaceType, scopes: ScopeMap): string {
  const fields = Object.values(type.getFields()).map((field: GraphQLField<unknown, unknown>) => {
    const args = field.args.length > 0 ? `(${field.args.map((arg) => `${escapeHtml(arg.name)}: ${typeRef(arg.type)}`).join(', ')})` : '';
    return `<dt id="${escapeHtml(fieldAnchor(type.name, field.name))}"><code>${escapeHtml(field.name)}${args}: ${typeRef(field.type)}</code>${scopeBadge(scopes.get(`${type.name}.${field.name}`))}${deprecation(field.deprecationReason)}</dt>
<dd>${descriptionHtml(field.description)}${argumentList(field.args)}</dd>`;
  });
  return `<dl class="fields">\n${fields.join('\n')}\n</dl>`;
}

function inputFieldList(type: GraphQLInputObjectType): string {
  const fields = Object.values(type.getFields()).map(
    (field) =>
      `<dt id="${escapeHtml(fieldAnchor(type.name, field.name))}"><code>${escapeHtml(field.name)}: ${typeRef(field.type)}${defaultValue(field)}</code>${deprecation(field.deprecationReason)}</dt>
<dd>${descriptionHtml(field.description)}</dd>`,
  );
  return `<dl class="fields">\n${fields.join('\n')}\n</dl>`;
}

function enumValueList(type: GraphQLEnumType): string {
  const values = type.getValues().map(
    (value) =>
      `<dt id="${escapeHtml(fieldAnchor(type.name, value.name))}"><code>${escapeHtml(value.name)}</code>${deprecation(value.deprecationReason)}</dt>
<dd>${descriptionHtml(value.description)}</dd>`,
  );
  return `<dl class="fields">\n${values.join('\n')}\n</dl>`;
}

function links(types: readonly GraphQLNamedType[]): string {
  return types.map((type) => typeRef(type)).join(', ');
}

type Kind = 'object' | 'interface' | 'union' | 'input' | 'enum' | 'scalar';

function kindOf(type: GraphQLNamedType): Kind {
  if (isObjectType(type)) return 'object';
  if (isInterfaceType(type)) return 'interface';
  if (isUnionType(type)) return 'union';
  if (isInputObjectType(type)) return 'input';
  if (isEnumType(type)) return 'enum';
  return 'scalar';
}

const SECTIONS: ReadonlyArray<{ kind: Kind; id: string; title: string }> = [
  { kind: 'object', id: 'objects', title: 'Objects' },
  { kind: 'interface', id: 'interfaces', title: 'Interfaces' },
  { kind: 'union', id: 'unions', title: 'Unions' },
  { kind: 'input', id: 'inputs', title: 'Input objects' },
  { kind: 'enum', id: 'enums', title: 'Enums' },
  { kind: 'scalar', id: 'scalars', title: 'Scalars' },
];

function typeSection(schema: GraphQLSchema, type: GraphQLNamedType, scopes: ScopeMap): string {
  const parts = [`<section id="${escapeHtml(typeAnchor(type.name))}">`, `<h3>${escapeHtml(type.name)}<span class="kind">${kindOf(type)}</span></h3>`, descriptionHtml(type.description)];
  if (isObjectType(type) || isInterfaceType(type)) {
    const interfaces = type.getInterfaces();
    if (interfaces.length > 0) parts.push(`<p>Implements ${links(interfaces)}.</p>`);
    if (isInterfaceType(type)) {
      const { objects, interfaces: subInterfaces } = schema.getImplementations(type);
      const implementations = [...subInterfaces, ...objects];
      if (implementations.length > 0) parts.push(`<p>Implemented by ${links(implementations)}.</p>`);
    }
    parts.push(fieldList(type, scopes));
  } else if (isUnionType(type)) {
    parts.push(`<p>One of ${links((type as GraphQLUnionType).getTypes())}.</p>`);
  } else if (isInputObjectType(type)) {
    parts.push(inputFieldList(type));
  } else if (isEnumType(type)) {
    parts.push(enumValueList(type));
  } else if (isScalarType(type)) {
    const url = (type as GraphQLScalarType).specifiedByURL;
    if (url) parts.push(`<p>Specified by <code>${escapeHtml(url)}</code>.</p>`);
  }
  parts.push('</section>');
  return parts.filter((part) => part !== '').join('\n');
}

function directiveSection(directive: GraphQLDirective): string {
  const args = directive.args.map((arg) => `${escapeHtml(arg.name)}: ${typeRef(arg.type)}`).join(', ');
  return `<section id="directive-${escapeHtml(directive.name)}">
<h3><code>@${escapeHtml(directive.name)}${args ? `(${args})` : ''}</code><span class="kind">on ${escapeHtml(directive.locations.join(', '))}</span></h3>
${descriptionHtml(directive.description)}
${argumentList(directive.args)}
</section>`;
}

const BUILT_IN_DIRECTIVES = new Set(['include', 'skip', 'deprecated', 'specifiedBy', 'oneOf']);

/**
 * The schema part of the member API reference, as HTML, written once from the GraphQLSchema the server runs: the
 * schema's description, the root operation types and their fields, then every other named type by kind (objects,
 * interfaces, unions, inputs, enums, scalars) with its description, fields with arguments and defaults,
 * deprecations and the scope each field needs (@requiresScope), and the schema's own directives. Every type is an
 * anchor (`#type-Name`, fields `#Type.field`) and every type reference links to it. All text is escaped.
 */
export function renderMemberApiReference(schema: GraphQLSchema, scopes: ScopeMap): string {
  const roots = [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()].filter((type): type is GraphQLObjectType => type !== null && type !== undefined);
  const rootNames = new Set(roots.map((type) => type.name));
  const named = Object.values(schema.getTypeMap())
    .filter((type) => !type.name.startsWith('__') && !rootNames.has(type.name))
    .sort((a, b) => a.name.localeCompare(b.name));
  const byKind = (kind: Kind) => named.filter((type) => kindOf(type) === kind);
  const directives = schema.getDirectives().filter((directive) => !BUILT_IN_DIRECTIVES.has(directive.name));

  const rootTitles = new Map<GraphQLObjectType | null | undefined, string>([
    [schema.getQueryType(), 'Queries'],
    [schema.getMutationType(), 'Mutations'],
    [schema.getSubscriptionType(), 'Subscriptions'],
  ]);
  const toc = [
    ...roots.map((type) => `<li><a href="#${typeAnchor(type.name)}">${rootTitles.get(type) ?? type.name}</a> (<code>${escapeHtml(type.name)}</code>)</li>`),
    ...SECTIONS.filter(({ kind }) => byKind(kind).length > 0).map(({ kind, id, title }) => `<li><a href="#${id}">${title}</a> (${byKind(kind).length})</li>`),
    ...(directives.length > 0 ? ['<li><a href="#directives">Directives</a></li>'] : []),
  ];

  const out: string[] = [descriptionHtml(schema.description), `<h2>Contents</h2>\n<ul>\n${toc.join('\n')}\n</ul>`];
  for (const root of roots) {
    out.push(`<h2>${rootTitles.get(root) ?? escapeHtml(root.name)}</h2>`, typeSection(schema, root, scopes));
  }
  for (const { kind, id, title } of SECTIONS) {
    const types = byKind(kind);
    if (types.length === 0) continue;
    out.push(`<h2 id="${id}">${title}</h2>`, `<ul class="toc">\n${types.map((type) => `<li>${typeRef(type)}</li>`).join('\n')}\n</ul>`);
    for (const type of types) out.push(typeSection(schema, type, scopes));
  }
  if (directives.length > 0) out.push('<h2 id="directives">Directives</h2>', ...directives.map(directiveSection));
  return out.filter((part) => part !== '').join('\n');
}
