import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { hasMemberFeatures, parseVariantName, VARIANT_PROFILES, variantProfile } from '../src/variant.js';
import { promptsOfVariant, resourcesOfVariant, toolsOfVariant } from '../src/mcp/server.js';

function sourceFiles(folder: string): string[] {
  return fs.readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

// Spec: variants. What a deployment variant changes is one profile of named capabilities; call sites read those.
describe('variant profile: what each deployment variant changes, decided in one place', () => {
  it('variant A: /member/graphql with the extra schema folder, per-field scope errors, picture, school-bound tokens, unbound tokens refused at /mcp, no introspection', () => {
    const a = variantProfile('A');
    expect(a.memberGraphql.path).to.equal('/member/graphql');
    expect(a.memberGraphql.schemaFolders).to.deep.equal(['schema', 'schema/variant-a']);
    expect(a.memberGraphql.scopeGate).to.equal('per-field');
    expect(a.pictureClaim).to.equal(true);
    expect(a.schoolBoundMemberTokens).to.equal(true);
    expect(a.mcpUnboundToken).to.equal('refuse');
    expect(a.introspection).to.equal(false);
    expect([...a.memberFeatures].sort()).to.deep.equal(['consultingMeetings', 'notificationInbox', 'payments']);
  });

  it('variant B: /account/graphql on the shared schema, scopes checked before execution, introspection, unbound tokens get the public tools', () => {
    const b = variantProfile('B');
    expect(b.memberGraphql.path).to.equal('/account/graphql');
    expect(b.memberGraphql.schemaFolders).to.deep.equal(['schema']);
    expect(b.memberGraphql.scopeGate).to.equal('before-execution');
    expect(b.pictureClaim).to.equal(false);
    expect(b.schoolBoundMemberTokens).to.equal(false);
    expect(b.mcpUnboundToken).to.equal('public-tools');
    expect(b.introspection).to.equal(true);
    expect(b.memberFeatures.size).to.equal(0);
  });

  it('every schema and operation folder a profile names exists', () => {
    for (const profile of VARIANT_PROFILES) {
      for (const folder of [...profile.memberGraphql.schemaFolders, ...profile.memberGraphql.operationFolders]) expect(fs.statSync(folder).isDirectory(), folder).to.equal(true);
    }
  });

  it('SCHOOLGATE_VARIANT parses case-insensitively, defaults to A, and anything else is refused', () => {
    expect(parseVariantName(undefined)).to.equal('A');
    expect(parseVariantName(' b ')).to.equal('B');
    expect(parseVariantName('C')).to.equal(null);
  });

  it('an MCP tool, resource or prompt over member features exists only where the deployment has them all', () => {
    const b = variantProfile('B');
    expect(hasMemberFeatures(b, {})).to.equal(true);
    expect(hasMemberFeatures(b, { needs: ['payments'] })).to.equal(false);
    expect(hasMemberFeatures(variantProfile('A'), { needs: ['payments', 'notificationInbox'] })).to.equal(true);
    const names = (profile = b) => toolsOfVariant(profile).map((tool) => tool.name);
    expect(names(variantProfile('A'))).to.include.members(['list_my_payments', 'list_my_notifications']);
    expect(names(b)).to.not.include('list_my_payments');
    for (const item of [...toolsOfVariant(b), ...resourcesOfVariant(b).map((r) => r.spec), ...promptsOfVariant(b).map((p) => p.spec)]) {
      expect(hasMemberFeatures(b, item)).to.equal(true);
    }
  });

  it('no source file outside src/variant.ts compares a variant with a letter', () => {
    const comparison = /(?:===|!==)\s*'[AB]'(?![\w-])|'[AB]'\s*(?:===|!==)|\bvariants?\s*:\s*\[?\s*'[AB]'/;
    const offenders = sourceFiles('src')
      .filter((file) => path.normalize(file) !== path.normalize('src/variant.ts'))
      .flatMap((file) => fs.readFileSync(file, 'utf8').split('\n').flatMap((line, index) => (comparison.test(line) ? [`${file}:${index + 1}: ${line.trim()}`] : [])));
    expect(offenders).to.deep.equal([]);
  });
});
