import { expect } from 'chai';
import { encodeNodeId } from '../src/member/ids.js';
import { describeEachDatabase } from './support/databases.js';
import { MIA, BULK, EDGE, useVariantASchool } from './support/member-variant-a.js';

/**
 * Variant A's viewer.payments over HTTP (spec: "Payment node"): every sub-record, ordering, paging and limits. Data:
 * the demo school (Mia, docs/demo.md) plus an import document with edge cases and bulk rows.
 */
describeEachDatabase('member GraphQL variant A: meetings, payments, notifications', (scratch) => {
  const school = useVariantASchool(scratch);

  describe('viewer.payments', () => {
    it('lists one node per payment of the viewer, newest first: unpaid and expired included, the open abandoned checkout held back', async () => {
      const page = await school.paymentsOf(MIA);
      expect(page.nodes.map((node) => node.tradeNo)).to.deep.equal([
        'NWA-100201',
        'NWA-100190',
        'NWA-100176',
        'NWA-100153',
        'NWA-100152',
        'NWA-100143',
        'NWA-100160',
        'NWA-100117',
        'NWA-100188',
        'NWA-100101',
      ]);
      expect(page.totalCount).to.equal(10);
      const created = page.nodes.map((node) => Date.parse(node.createdAt));
      expect(created).to.deep.equal([...created].sort((a, b) => b - a));
      expect(page.nodes.map((node) => node.tradeNo), 'the abandoned checkout that has not expired').not.to.include('NWA-100205');
      expect(page.nodes.map((node) => node.tradeNo), 'site B').not.to.include('B-0001');
      expect(page.nodes.map((node) => node.paymentState)).to.include.members(['UNPAID', 'EXPIRED', 'FAILED', 'PAID']);
    });

    it('shows a retried checkout as two nodes with different tradeNo and ids', async () => {
      const page = await school.paymentsOf(MIA);
      const failed = page.nodes.find((node) => node.tradeNo === 'NWA-100152');
      const retried = page.nodes.find((node) => node.tradeNo === 'NWA-100153');
      expect(failed?.paymentState).to.equal('FAILED');
      expect(failed?.paymentType).to.equal('CREDIT_CARD');
      expect(retried?.paymentState).to.equal('PAID');
      expect(retried?.paymentType).to.equal('LINE_PAY');
      expect(failed?.id).to.not.equal(retried?.id);
      expect(failed?.lineitems).to.deep.equal(retried?.lineitems);
    });

    it('holds an abandoned checkout back while unpaid and lists it once expired', async () => {
      const mia = await school.paymentsOf(MIA);
      const expired = mia.nodes.find((node) => node.tradeNo === 'NWA-100143');
      expect(expired).to.include({ paymentType: null, paymentState: 'EXPIRED', paidAt: null, bankCode: null, codeNo: null });
      const edge = await school.paymentsOf(EDGE);
      const trades = edge.nodes.map((node) => node.tradeNo);
      expect(trades).not.to.include('X-EDGE-ABANDONED-OPEN');
      expect(trades).to.include.members(['X-EDGE-ABANDONED-LAPSED', 'X-EDGE-ABANDONED-CANCELED']);
      expect(edge.nodes.find((node) => node.tradeNo === 'X-EDGE-ABANDONED-LAPSED')?.paymentState, 'past its deadline').to.equal('EXPIRED');
      expect(edge.nodes.find((node) => node.tradeNo === 'X-EDGE-ABANDONED-CANCELED')?.paymentState).to.equal('CANCELED');
      expect(edge.totalCount).to.equal(5);
    });

    it('gives ATM and convenience-store instructions only for unpaid or expired payments', async () => {
      const mia = await school.paymentsOf(MIA);
      const atm = mia.nodes.find((node) => node.tradeNo === 'NWA-100201')!;
      expect(atm).to.include({ paymentType: 'ATM', paymentState: 'UNPAID', bankCode: '822', bankName: 'CTBC Bank', codeNo: '9103522850012345', paidAt: null });
      expect(Date.parse(atm.expiredAt!)).to.be.greaterThan(Date.now());
      const cvs = mia.nodes.find((node) => node.tradeNo === 'NWA-100176')!;
      expect(cvs).to.include({ paymentType: 'CVS', paymentState: 'EXPIRED', bankCode: null, bankName: null, codeNo: 'LLL24110800123' });
      expect(Date.parse(cvs.expiredAt!)).to.be.lessThan(Date.now());
      for (const paid of mia.nodes.filter((node) => node.paymentState === 'PAID')) {
        expect(paid, paid.tradeNo).to.include({ bankCode: null, bankName: null, codeNo: null, expiredAt: null });
      }
      const edge = await school.paymentsOf(EDGE);
      const byTrade = new Map(edge.nodes.map((node) => [node.tradeNo, node]));
      expect(byTrade.get('X-EDGE-ATM-PAID')).to.include({ paymentType: 'ATM', paymentState: 'PAID', bankCode: null, bankName: null, codeNo: null, expiredAt: null });
      expect(byTrade.get('X-EDGE-ATM-LAPSED')).to.include({ paymentType: 'ATM', paymentState: 'EXPIRED', bankCode: '812', bankName: 'Taishin', codeNo: '000222' });
      expect(byTrade.get('X-EDGE-CVS-UNPAID')).to.include({ paymentType: 'CVS', paymentState: 'UNPAID', bankCode: null, bankName: null, codeNo: 'CVS-333' });
      expect(byTrade.get('X-EDGE-CVS-UNPAID')?.expiredAt).to.be.a('string');
    });

    it('carries every field group: amounts, adjustments, line items, invoice, installment, refund set', async () => {
      const page = await school.paymentsOf(MIA);
      const byTrade = new Map(page.nodes.map((node) => [node.tradeNo, node]));
      const coupon = byTrade.get('NWA-100101')!;
      expect(coupon).to.include({ amount: 324_000, currency: 'TWD', paymentType: 'CREDIT_CARD', paymentState: 'PAID', refundingState: 'NONE', refundedAmount: 0, refundedAt: null, refundRequestedAt: null, installment: null });
      expect(coupon.paidAt).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      expect(coupon.adjustments).to.deep.equal([{ kind: 'COUPON', code: 'WELCOME10', title: 'Welcome 10% off', amount: -36_000 }]);
      const courseRow = (await school.db('courses').where({ site_id: school.server.siteA.id, external_id: 'crs-typo' }).first('id')) as { id: number };
      expect(coupon.lineitems).to.deep.equal([
        { title: 'Foundations of Typography', kind: 'COURSE', quantity: 1, unitAmount: 360_000, amount: 360_000, productId: encodeNodeId('Course', Number(courseRow.id)) },
      ]);
      expect(coupon.invoice).to.include({ number: 'AB-10010101', type: 'PERSONAL', title: null, taxId: null, status: 'ISSUED' });
      expect(coupon.invoice?.issuedAt).to.be.a('string');

      const installments = byTrade.get('NWA-100117')!;
      expect(installments.installment).to.deep.equal({ count: 3, firstInstallmentAmount: 160_000, perInstallmentAmount: 160_000 });
      expect(installments.invoice).to.include({ type: 'COMPANY', title: 'Chen Studio Ltd.', taxId: '24536806', status: 'ISSUED' });

      const refunded = byTrade.get('NWA-100188')!;
      expect(refunded).to.include({ refundingState: 'REFUNDED', refundedAmount: 120_000 });
      expect(refunded.refundedAt).to.be.a('string');
      expect(refunded.refundRequestedAt).to.be.a('string');
      expect(refunded.invoice?.status).to.equal('VOIDED');
      expect(refunded.lineitems[0]?.kind).to.equal('DIGITAL_PRODUCT');

      const partial = byTrade.get('NWA-100190')!;
      expect(partial).to.include({ paymentType: 'GOOGLE_PAY', refundingState: 'PARTIALLY_REFUNDED', refundedAmount: 50_000, amount: 100_000 });
      expect(partial.lineitems[0]).to.include({ kind: 'EVENT', quantity: 2, unitAmount: 50_000, amount: 100_000 });
      expect(partial.lineitems[0]?.productId).to.be.a('string');

      expect(byTrade.get('NWA-100160')?.lineitems[0]).to.include({ kind: 'CONSULTING_SERVICE' });
      expect(byTrade.get('NWA-100160')?.paymentType).to.equal('APPLE_PAY');
      const membership = byTrade.get('NWA-100201')!;
      expect(membership.lineitems[0]).to.include({ kind: 'MEMBERSHIP_PLAN', productId: null });
      expect(membership.invoice).to.include({ number: null, status: 'PENDING', issuedAt: null });
      expect(byTrade.get('NWA-100176')?.invoice).to.equal(null);
      expect(byTrade.get('NWA-100176')?.adjustments).to.deep.equal([]);
      for (const node of page.nodes) {
        const lines = node.lineitems.reduce((sum, line) => sum + line.amount, 0);
        const adjustments = node.adjustments.reduce((sum, adjustment) => sum + adjustment.amount, 0);
        expect(lines + adjustments, node.tradeNo).to.equal(node.amount);
      }
    });

    it('clamps pages to 50 (60 payments) and pages on to the rest', async () => {
      // Few fields: the endpoint's cost estimate counts the requested page size, not the clamped one.
      const page = await school.paymentsOf(BULK, 'first: 80', 'id tradeNo');
      expect(page.nodes).to.have.length(50);
      expect(page.totalCount).to.equal(60);
      expect(page.nodes[0]?.tradeNo).to.equal('X-BULK-000');
      const rest = await school.paymentsOf(BULK, `first: 50, after: "${page.pageInfo.endCursor}"`, 'id tradeNo');
      expect(rest.nodes.map((node) => node.tradeNo)).to.deep.equal(Array.from({ length: 10 }, (_, i) => `X-BULK-${String(50 + i).padStart(3, '0')}`));
      const last = await school.paymentsOf(BULK, 'last: 99', 'id tradeNo');
      expect(last.nodes).to.have.length(50);
      expect(last.nodes[49]?.tradeNo).to.equal('X-BULK-059');
    });
  });
});
