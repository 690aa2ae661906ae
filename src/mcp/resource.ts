import type { ReadResourceResult, Resource, ResourceTemplateType } from '@modelcontextprotocol/server';
import type { Scope } from '../clients/scopes.js';
import type { MemberFeature } from '../variant.js';
import type { Site } from '../sites/sites.js';
import type { ToolContext } from './session.js';

/**
 * MCP resources of a school. Every URI names the school by its host, so a URI read at another school's `/mcp` is
 * refused instead of answered with that school's data:
 *
 * - `school://{host}{path}`: the school's data, e.g. `school://academy.example.com/courses/typography/syllabus`;
 * - `ui://{host}{path}`: an interactive view (MCP Apps) that shows one of the tools' results.
 *
 * A resource's `path` is fixed (`/profile`) or a template (`/courses/{slug}/syllabus`, RFC 6570 level 1: each
 * `{name}` is one path segment, percent-encoded).
 */
export type ResourceScheme = 'school' | 'ui';

export interface ResourceSpec {
  /** Stable machine name (`resources/list` and `resources/templates/list` show it). */
  name: string;
  title: string;
  description: string;
  mimeType: string;
  scheme?: ResourceScheme;
  /** `/profile`, or a template such as `/courses/{slug}/syllabus`. */
  path: string;
  /** Every scope a reader needs; none for a public resource that anonymous callers read too. */
  scopes: readonly Scope[];
  /** The member features the resource reads (default none): it exists only where the deployment has them. */
  needs?: readonly MemberFeature[];
  /** Extension metadata of the listing and of what is read (MCP Apps: the view's CSP and permissions). */
  _meta?: Record<string, unknown>;
  /** How long a client may reuse what it read (2026-07-28 `ttlMs`); 0 when every read must ask again. */
  ttlMs: number;
  /** The contents at `uri`; `params` holds the template's values. Throws ResourceUnavailableError when there is none. */
  read(context: ToolContext, uri: string, params: Readonly<Record<string, string>>): Promise<ReadResourceResult['contents']>;
  /**
   * Templates only: the resources the template stands for, for `resources/list`, in a stable order from `after` (the
   * `next` of the previous call; null at the start), at most `limit`.
   */
  instances?(context: ToolContext, after: string | null, limit: number): Promise<{ items: ResourceInstance[]; next: string | null }>;
  /** Templates only: values for the argument `name` that start with `prefix` (`completion/complete`), best first. */
  complete?(context: ToolContext, name: string, prefix: string): Promise<string[]>;
}

/** One resource a template stands for: the template's values and what the listing says about it. */
export interface ResourceInstance {
  params: Record<string, string>;
  title: string;
  description?: string;
}

/** A resource that cannot be read: the URI names nothing (an unknown course), or nothing the caller may read. */
export class ResourceUnavailableError extends Error {}

/** The authority (host and port) that names a school in its resource URIs. */
export function resourceAuthority(site: Site): string {
  return new URL(site.origin).host;
}

const PARAMETER = /^\{([a-z][a-zA-Z0-9_]*)\}$/;

/** One resource or resource template of the catalogue, its URI matcher and its listings built once. */
export class McpResource {
  readonly spec: ResourceSpec;
  readonly scheme: ResourceScheme;
  readonly isTemplate: boolean;
  private readonly segments: readonly string[];

  constructor(spec: ResourceSpec) {
    this.spec = spec;
    this.scheme = spec.scheme ?? 'school';
    this.segments = spec.path.split('/').slice(1);
    this.isTemplate = this.segments.some((segment) => PARAMETER.test(segment));
  }

  get scopes(): readonly Scope[] {
    return this.spec.scopes;
  }

  /** The URI at a school, with the template's values filled in (each one percent-encoded as one segment). */
  uri(site: Site, params: Readonly<Record<string, string>> = {}): string {
    const path = this.segments.map((segment) => {
      const name = PARAMETER.exec(segment)?.[1];
      return name === undefined ? segment : encodeURIComponent(params[name] ?? '');
    });
    return `${this.scheme}://${resourceAuthority(site)}/${path.join('/')}`;
  }

  /** The URI template (RFC 6570) at a school, as `resources/templates/list` shows it. */
  uriTemplate(site: Site): string {
    return `${this.scheme}://${resourceAuthority(site)}${this.spec.path}`;
  }

  /** The template's values when `path` (already split into decoded segments) is this resource's; null otherwise. */
  match(scheme: string, segments: readonly string[]): Record<string, string> | null {
    if (scheme !== this.scheme || segments.length !== this.segments.length) return null;
    const params: Record<string, string> = {};
    for (const [index, segment] of this.segments.entries()) {
      const name = PARAMETER.exec(segment)?.[1];
      const value = segments[index] ?? '';
      if (name === undefined) {
        if (value !== segment) return null;
      } else {
        if (value === '') return null;
        params[name] = value;
      }
    }
    return params;
  }

  /** What `resources/list` shows for the fixed resource, or for one instance of a template. */
  listing(site: Site, instance?: ResourceInstance): Resource {
    const { spec } = this;
    return {
      uri: this.uri(site, instance?.params),
      name: spec.name,
      title: instance?.title ?? spec.title,
      description: instance?.description ?? spec.description,
      mimeType: spec.mimeType,
      ...(spec._meta === undefined ? {} : { _meta: spec._meta }),
    };
  }

  /** What `resources/templates/list` shows for a template. */
  templateListing(site: Site): ResourceTemplateType {
    const { spec } = this;
    return { uriTemplate: this.uriTemplate(site), name: spec.name, title: spec.title, description: spec.description, mimeType: spec.mimeType };
  }
}

export function defineResource(spec: ResourceSpec): McpResource {
  return new McpResource(spec);
}
