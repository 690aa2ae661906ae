import { expect } from 'chai';
import { withoutTypeArrays } from '../src/mcp/portable-schema.js';
import { toolsOfVariant } from '../src/mcp/server.js';
import { variantProfile } from '../src/variant.js';

/** The tools' JSON Schemas in the portable form strict checkers (the MCP Inspector's `--strict`) ask for. */
describe('MCP tool schemas', () => {
  it('use no type arrays in any input or output schema of either variant', () => {
    for (const variant of ['A', 'B'] as const) {
      for (const tool of toolsOfVariant(variantProfile(variant))) {
        expect(JSON.stringify(tool.definition.inputSchema), `${tool.name} input`).not.to.match(/"type":\[/);
        expect(JSON.stringify(tool.definition.outputSchema), `${tool.name} output`).not.to.match(/"type":\[/);
      }
    }
  });

  it('say a nullable value as anyOf, annotations outside and constraints with the non-null branch', () => {
    expect(withoutTypeArrays({ type: 'object', properties: { note: { type: ['string', 'null'], description: 'A note.', minLength: 1 } } })).to.deep.equal({
      type: 'object',
      properties: { note: { description: 'A note.', anyOf: [{ type: 'string', minLength: 1 }, { type: 'null' }] } },
    });
    expect(withoutTypeArrays({ items: [{ type: ['integer', 'string'] }] })).to.deep.equal({ items: [{ anyOf: [{ type: 'integer' }, { type: 'string' }] }] });
  });
});
