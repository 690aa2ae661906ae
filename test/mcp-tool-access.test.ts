import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { expect } from 'chai';
import type { Variant } from '../src/config/config.js';
import { toolsOfVariant } from '../src/mcp/server.js';
import { describeEachDatabase, type ScratchDatabase } from './support/databases.js';
import { MCP_ERAS, postModern, withMcpClient, type McpCourse } from './support/mcp-clients.js';
import { call, callError, MEMBER_READ_TOOLS, MEMBER_WRITE_TOOLS, PUBLIC_TOOLS, toolNames, useMcpSchool, withClient } from './support/mcp-school.js';
import { variantProfile } from '../src/variant.js';

/**
 * Which /mcp tools each kind of caller sees and may call (spec: Authentication 8-9): anonymous callers the public
 * tools, member tokens every member tool with a 403 step-up for a missing scope (RFC 6750 3.1), operator tokens no
 * member tool; the same on both protocol revisions, and every scope a challenge names is in the protected-resource
 * metadata (RFC 9728).
 */
for (const variant of ['A', 'B'] as const) {
  describeEachDatabase(`MCP endpoint /mcp, variant ${variant}`, (scratch) => toolAccessSuite(variant, scratch));
}

function toolAccessSuite(variant: Variant, scratch: () => ScratchDatabase): void {
  const school = useMcpSchool(variant, scratch);

  describe('who sees which tools', () => {
    it('serves an anonymous caller exactly the public tools, each with a description and input and output schemas', async () => {
      await withClient(school.origin, undefined, async (client) => {
        const { tools } = await client.listTools();
        expect(tools.map((tool) => tool.name).sort()).to.deep.equal([...PUBLIC_TOOLS].sort());
        for (const tool of tools) {
          expect(tool.description, tool.name).to.be.a('string').with.length.above(80);
          expect(tool.inputSchema.type).to.equal('object');
          expect(tool.outputSchema?.type, `${tool.name} has an output schema`).to.equal('object');
          expect(tool.annotations?.readOnlyHint, tool.name).to.equal(true);
        }
        expect(client.getServerVersion()?.name).to.equal('schoolgate');
        expect(client.getInstructions()).to.include(`${school.origin}/auth.md`);
      });
    });

    it('serves a member token with account:read and account:write the public and every user-bound tool of the variant', async () => {
      expect(await toolNames(school.origin, school.tokens.full)).to.deep.equal([...PUBLIC_TOOLS, ...MEMBER_READ_TOOLS[variant], ...MEMBER_WRITE_TOOLS[variant]].sort());
    });

    it('lists every member tool to any member token, and answers one the token lacks scopes for with HTTP 403 insufficient_scope naming every scope it needs (step-up)', async () => {
      const everyTool = [...PUBLIC_TOOLS, ...MEMBER_READ_TOOLS[variant], ...MEMBER_WRITE_TOOLS[variant]].sort();
      expect(await toolNames(school.origin, school.tokens.read)).to.deep.equal(everyTool);
      expect(await toolNames(school.origin, school.tokens.identity), 'no account scope yet: calling a member tool is how the client learns which to ask for').to.deep.equal(everyTool);
      const stepUps: Array<[token: string, tool: string, scopes: string, lacking: string]> = [[school.tokens.write, 'list_my_courses', 'account:read', 'account:read']];
      if (variant === 'A') stepUps.push([school.tokens.read, 'mark_all_notifications_read', 'account:read account:write', 'account:write']);
      for (const [token, tool, scopes, lacking] of stepUps) {
        const response = await fetch(`${school.origin}/mcp`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
          body: JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: tool, arguments: {} } }),
        });
        expect(response.status, tool).to.equal(403);
        const challenge = response.headers.get('www-authenticate') ?? '';
        expect(challenge).to.match(/^Bearer /);
        expect(challenge).to.include('error="insufficient_scope"');
        expect(challenge, 'every scope the tool needs, in one value').to.include(`scope="${scopes}"`);
        expect(challenge).to.include(`resource_metadata="${school.origin}/.well-known/oauth-protected-resource"`);
        const body = (await response.json()) as { error: string; error_description: string };
        expect(body.error).to.equal('insufficient_scope');
        expect(body.error_description).to.include(`lacks ${lacking}`).and.to.include('authorize again');
      }
      // The SDK client sees the 403 (a client with an OAuth provider starts the step-up from it).
      await withClient(school.origin, school.tokens.write, async (client) => {
        const refused = await client.callTool({ name: 'list_my_courses', arguments: {} }).then(
          () => null,
          (error: unknown) => error,
        );
        expect(refused).to.be.instanceOf(StreamableHTTPError).with.property('code', 403);
      });
    });

    it('answers an anonymous call of a user-bound tool with 401 and the challenge that starts OAuth, and a JSON-RPC -32602 for a tool that does not exist', async () => {
      const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_my_course_syllabus', arguments: { course: 'foundations-of-typography' } } };
      const response = await fetch(`${school.origin}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify(call) });
      expect(response.status).to.equal(401);
      expect(response.headers.get('www-authenticate')).to.equal(`Bearer realm="${school.origin}", resource_metadata="${school.origin}/.well-known/oauth-protected-resource", scope="account:read"`);
      const body = (await response.json()) as { error: { message: string } };
      expect(body.error.message).to.include(`${school.origin}/auth.md`);
      await withClient(school.origin, undefined, async (client) => {
        const refused = await client.callTool({ name: 'get_my_course_syllabus', arguments: { course: 'foundations-of-typography' } }).then(
          () => null,
          (error: unknown) => error,
        );
        expect(refused).to.be.instanceOf(StreamableHTTPError).with.property('code', 401);
        // The MCP tools spec: an unknown tool is a protocol error (-32602), not a tool result.
        const unknown = await client.callTool({ name: 'drop_tables', arguments: {} }).then(
          () => null,
          (error: unknown) => error as { code?: number; message?: string },
        );
        expect(unknown?.code).to.equal(-32602);
        expect(unknown?.message).to.include('Unknown tool: drop_tables');
      });
    });

    it('gives an operator token the public tools only (it holds no account scope)', async () => {
      expect(await toolNames(school.origin, school.tokens.operator)).to.deep.equal([...PUBLIC_TOOLS].sort());
      await withClient(school.origin, school.tokens.operator, async (client) => {
        expect((await callError(client, 'list_my_courses')).error).to.equal('insufficient_scope');
      });
    });

    if (variant === 'B') {
      it('has no tools for the variant A member fields (meetings, payments, notifications)', async () => {
        await withClient(school.origin, school.tokens.full, async (client) => {
          for (const name of [...MEMBER_READ_TOOLS.A, ...MEMBER_WRITE_TOOLS.A].filter((tool) => !MEMBER_READ_TOOLS.B.includes(tool))) {
            const refused = await client.callTool({ name, arguments: {} }).then(
              () => null,
              (error: unknown) => error as { code?: number },
            );
            expect(refused?.code, name).to.equal(-32602);
          }
        });
      });
    }
  });

  describe('on both protocol revisions (2025-11-25 through the SDK v1 client, 2026-07-28 through the v2 client)', () => {
    for (const era of MCP_ERAS) {
      it(`${era}: the same tools and the same answers for the same caller`, async () => {
        const everyTool = [...PUBLIC_TOOLS, ...MEMBER_READ_TOOLS[variant], ...MEMBER_WRITE_TOOLS[variant]].sort();
        const anonymous = await withMcpClient(school.origin, era, undefined, async (client) => (await client.listTools()).tools.map((tool) => tool.name).sort());
        expect(anonymous).to.deep.equal([...PUBLIC_TOOLS].sort());
        await withMcpClient(school.origin, era, school.tokens.read, async (client) => {
          expect((await client.listTools()).tools.map((tool) => tool.name).sort()).to.deep.equal(everyTool);
          const result = await client.callTool({ name: 'list_my_courses', arguments: { first: 50 } });
          expect(result.isError).to.not.equal(true);
          const legacy = await withClient(school.origin, school.tokens.read, (legacyClient) => call<{ courses: McpCourse[] }>(legacyClient, 'list_my_courses', { first: 50 }));
          expect(result.structuredContent).to.deep.equal(legacy);
        });
      });
    }

    it('2026-07-28: a member tool without a token answers 401 with the OAuth challenge and the request id; one the token lacks scopes for answers the 403 step-up', async () => {
      const anonymous = await postModern(school.origin, 'call-1', 'tools/call', { name: 'list_my_courses', arguments: {} }, { name: 'list_my_courses' });
      expect(anonymous.status).to.equal(401);
      expect(anonymous.headers.get('www-authenticate')).to.equal(`Bearer realm="${school.origin}", resource_metadata="${school.origin}/.well-known/oauth-protected-resource", scope="account:read"`);
      expect(((await anonymous.json()) as { id: unknown }).id).to.equal('call-1');
      const lacking = await postModern(school.origin, 2, 'tools/call', { name: 'list_my_courses', arguments: {} }, { name: 'list_my_courses', token: school.tokens.write });
      expect(lacking.status).to.equal(403);
      expect(lacking.headers.get('www-authenticate')).to.include('error="insufficient_scope"').and.to.include('scope="account:read"');
      await lacking.arrayBuffer();
      const granted = await postModern(school.origin, 3, 'tools/call', { name: 'list_my_courses', arguments: {} }, { name: 'list_my_courses', token: school.tokens.read });
      expect(granted.status).to.equal(200);
      const answer = (await granted.json()) as { id: unknown; result: { resultType?: string; structuredContent?: unknown } };
      expect(answer.id).to.equal(3);
      expect(answer.result.resultType).to.equal('complete');
    });

    it('lists every scope a challenge can name in the protected-resource metadata (scopes_supported)', async () => {
      const metadata = (await (await fetch(`${school.origin}/.well-known/oauth-protected-resource`)).json()) as { scopes_supported: string[] };
      const challengeable = new Set(toolsOfVariant(variantProfile(variant)).flatMap((tool) => tool.scopes));
      expect([...challengeable].sort()).to.deep.equal(['account:read', ...(variant === 'A' ? ['account:write'] : [])]);
      for (const scope of challengeable) expect(metadata.scopes_supported, scope).to.include(scope);
    });
  });
}
