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
import { html, joinHtml, type Html } from '../http/html.js';

/** The anchor of a named type on the page: `#type-Viewer`. */
export function typeAnchor(name: string): string {
  return `type-${name}`;
}

function fieldAnchor(typeName: string, fieldName: string): string {
  return `${typeName}.${fieldName}`;
}

/** A paragraph with its `backtick spans` as <code>: the split puts the spans' contents at the odd indexes. */
function paragraphHtml(paragraph: string): Html {
  return html`<p>${paragraph.split(/`([^`]+)`/).map((part, index) => (index % 2 === 1 ? html`<code>${part}</code>` : part))}</p>`;
}

/**
 * A description as HTML: escaped, paragraphs at blank lines, `backtick spans` as <code>. No other markdown: the
 * SDL's descriptions are plain sentences.
 */
export function descriptionHtml(text: string | null | undefined): Html | null {
  if (!text) return null;
  const paragraphs = text.trim().split(/\n\s*\n/);
  return joinHtml(paragraphs.map((paragraph) => paragraphHtml(paragraph.trim())), '\n');
}

function typeRef(type: GraphQLType): Html {
  if (isNonNullType(type)) return html`${typeRef(type.ofType)}!`;
  if (isListType(type)) return html`[${typeRef(type.ofType)}]`;
  return html`<a href="#${typeAnchor(type.name)}">${type.name}</a>`;
}

function defaultValue(input: GraphQLArgument | GraphQLInputField): Html | null {
  if (input.defaultValue === undefined) return null;
  const ast = astFromValue(input.defaultValue, input.type);
  return ast ? html` = ${print(ast)}` : null;
}

function deprecation(reason: string | null | undefined): Html | null {
  return reason === null || reason === undefined ? null : html` <span class="deprecated">Deprecated: ${reason}</span>`;
}

function scopeBadge(scopes: readonly string[] | undefined): Html | null {
  if (!scopes || scopes.length === 0) return null;
  return html` <span class="scope" title="The token needs one of these scopes">Scope: ${joinHtml(scopes.map((scope) => html`<code>${scope}</code>`), ' or ')}</span>`;
}

function argumentList(args: readonly GraphQLArgument[]): Html | null {
  if (args.length === 0) return null;
  const items = args.map(
    (arg) =>
      html`<li><code>${arg.name}: ${typeRef(arg.type)}${defaultValue(arg)}</code>${deprecation(arg.deprecationReason)}${arg.description && html` ${descriptionHtml(arg.description)}`}</li>`,
  );
  return html`<p>Arguments:</p>\n<ul class="args">\n${joinHtml(items, '\n')}\n</ul>`;
}

function definitionList(items: readonly Html[]): Html {
  return html`<dl class="fields">\n${joinHtml(items, '\n')}\n</dl>`;
}

function fieldList(type: GraphQLObjectType | GraphQLInterfaceType, scopes: ScopeMap): Html {
  const fields = Object.values(type.getFields()).map((field: GraphQLField<unknown, unknown>) => {
    const args = field.args.length > 0 && html`(${joinHtml(field.args.map((arg) => html`${arg.name}: ${typeRef(arg.type)}`), ', ')})`;
    return html`<dt id="${fieldAnchor(type.name, field.name)}"><code>${field.name}${args}: ${typeRef(field.type)}</code>${scopeBadge(scopes.get(`${type.name}.${field.name}`))}${deprecation(field.deprecationReason)}</dt>
<dd>${descriptionHtml(field.description)}${argumentList(field.args)}</dd>`;
  });
  return definitionList(fields);
}

function inputFieldList(type: GraphQLInputObjectType): Html {
  const fields = Object.values(type.getFields()).map(
    (field) =>
      html`<dt id="${fieldAnchor(type.name, field.name)}"><code>${field.name}: ${typeRef(field.type)}${defaultValue(field)}</code>${deprecation(field.deprecationReason)}</dt>
<dd>${descriptionHtml(field.description)}</dd>`,
  );
  return definitionList(fields);
}

function enumValueList(type: GraphQLEnumType): Html {
  const values = type.getValues().map(
    (value) =>
      html`<dt id="${fieldAnchor(type.name, value.name)}"><code>${value.name}</code>${deprecation(value.deprecationReason)}</dt>
<dd>${descriptionHtml(value.description)}</dd>`,
  );
  return definitionList(values);
}

function links(types: readonly GraphQLNamedType[]): Html {
  return joinHtml(types.map((type) => typeRef(type)), ', ');
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

function typeSection(schema: GraphQLSchema, type: GraphQLNamedType, scopes: ScopeMap): Html {
  const parts: Array<Html | null> = [html`<section id="${typeAnchor(type.name)}">`, html`<h3>${type.name}<span class="kind">${kindOf(type)}</span></h3>`, descriptionHtml(type.description)];
  if (isObjectType(type) || isInterfaceType(type)) {
    const interfaces = type.getInterfaces();
    if (interfaces.length > 0) parts.push(html`<p>Implements ${links(interfaces)}.</p>`);
    if (isInterfaceType(type)) {
      const { objects, interfaces: subInterfaces } = schema.getImplementations(type);
      const implementations = [...subInterfaces, ...objects];
      if (implementations.length > 0) parts.push(html`<p>Implemented by ${links(implementations)}.</p>`);
    }
    parts.push(fieldList(type, scopes));
  } else if (isUnionType(type)) {
    parts.push(html`<p>One of ${links((type as GraphQLUnionType).getTypes())}.</p>`);
  } else if (isInputObjectType(type)) {
    parts.push(inputFieldList(type));
  } else if (isEnumType(type)) {
    parts.push(enumValueList(type));
  } else if (isScalarType(type)) {
    const url = (type as GraphQLScalarType).specifiedByURL;
    if (url) parts.push(html`<p>Specified by <code>${url}</code>.</p>`);
  }
  parts.push(html`</section>`);
  return joinHtml(parts.filter((part) => part !== null), '\n');
}

function directiveSection(directive: GraphQLDirective): Html {
  const args = joinHtml(directive.args.map((arg) => html`${arg.name}: ${typeRef(arg.type)}`), ', ');
  return html`<section id="directive-${directive.name}">
<h3><code>@${directive.name}${directive.args.length > 0 && html`(${args})`}</code><span class="kind">on ${directive.locations.join(', ')}</span></h3>
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
export function renderMemberApiReference(schema: GraphQLSchema, scopes: ScopeMap): Html {
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
    ...roots.map((type) => html`<li><a href="#${typeAnchor(type.name)}">${rootTitles.get(type) ?? type.name}</a> (<code>${type.name}</code>)</li>`),
    ...SECTIONS.filter(({ kind }) => byKind(kind).length > 0).map(({ kind, id, title }) => html`<li><a href="#${id}">${title}</a> (${byKind(kind).length})</li>`),
    ...(directives.length > 0 ? [html`<li><a href="#directives">Directives</a></li>`] : []),
  ];

  const out: Array<Html | null> = [descriptionHtml(schema.description), html`<h2>Contents</h2>\n<ul>\n${joinHtml(toc, '\n')}\n</ul>`];
  for (const root of roots) {
    out.push(html`<h2>${rootTitles.get(root) ?? root.name}</h2>`, typeSection(schema, root, scopes));
  }
  for (const { kind, id, title } of SECTIONS) {
    const types = byKind(kind);
    if (types.length === 0) continue;
    out.push(
      html`<h2 id="${id}">${title}</h2>`,
      html`<ul class="toc">\n${joinHtml(types.map((type) => html`<li>${typeRef(type)}</li>`), '\n')}\n</ul>`,
    );
    for (const type of types) out.push(typeSection(schema, type, scopes));
  }
  if (directives.length > 0) out.push(html`<h2 id="directives">Directives</h2>`, ...directives.map(directiveSection));
  return joinHtml(out.filter((part) => part !== null), '\n');
}
