import { expect } from 'chai';
import { resultJson, structuredText } from '../src/mcp/result-json.js';

/** A tool result as src/mcp/tool.ts makes it: the structured JSON as its text content too. */
function toolResult(structured: Record<string, unknown>): Record<string, unknown> {
  return { content: [{ type: 'text', text: structuredText(structured) }], structuredContent: structured };
}

describe('MCP result JSON written once', () => {
  const structured = { course: { id: 'Q291cnNlOjE', title: 'Étude "quoted" \\ \u2028 ✓' }, sections: [{ lectures: [{ unlockAt: null, isLocked: true }] }], none: undefined };

  it('writes a tool result byte for byte as JSON.stringify does', () => {
    const result = toolResult(structured);
    expect(resultJson(result)).to.equal(JSON.stringify(result));
  });

  it('keeps the order and the members of the envelope around it, leaving out undefined ones', () => {
    const result = toolResult(structured);
    const answered = { ...result, isError: undefined, resultType: 'complete', _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'school' } } };
    expect(resultJson(answered)).to.equal(JSON.stringify(answered));
    const body = `{"result":${resultJson(answered)},"jsonrpc":"2.0","id":7}`;
    expect(JSON.parse(body)).to.deep.equal(JSON.parse(JSON.stringify({ result: answered, jsonrpc: '2.0', id: 7 })));
  });

  it('serialises a result whose text is not the structured JSON, or an object it did not write, as it is', () => {
    const changed = { content: [{ type: 'text', text: 'other' }], structuredContent: toolResult(structured).structuredContent };
    expect(resultJson(changed)).to.equal(JSON.stringify(changed));
    const unknown = { content: [{ type: 'text', text: JSON.stringify({ a: 1 }) }], structuredContent: { a: 2 } };
    expect(resultJson(unknown)).to.equal(JSON.stringify(unknown));
    const error = { isError: true, content: [{ type: 'text', text: '{"error":"not_found"}' }] };
    expect(resultJson(error)).to.equal(JSON.stringify(error));
  });
});
