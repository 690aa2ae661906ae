import type { Knex } from 'knex';
import { externalId, money, reference, time, timestamps } from '../schema-helpers.js';

/** Digital products with ownership, and payments with every field group of the spec's Payment node. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('digital_products', (t) => {
    t.increments('id');
    reference(t, 'site_id', 'sites', 'CASCADE');
    externalId(t, 'site_id');
    t.string('slug', 191).notNullable();
    t.string('title', 255).notNullable();
    t.text('description').nullable();
    // ebook | audio | video | file | template
    t.string('kind', 16).notNullable().defaultTo('file');
    t.string('cover_image_url', 2048).nullable();
    t.string('download_url', 2048).nullable();
    t.string('status', 16).notNullable().defaultTo('draft');
    money(t, 'price', true);
    t.integer('version').unsigned().notNullable().defaultTo(1);
    timestamps(t);
    t.unique(['site_id', 'slug']);
  });

  await knex.schema.createTable('digital_product_ownerships', (t) => {
    t.increments('id');
    reference(t, 'site_id', 'sites', 'CASCADE');
    reference(t, 'product_id', 'digital_products', 'CASCADE');
    reference(t, 'user_id', 'users', 'CASCADE');
    time(t, 'acquired_at').notNullable();
    time(t, 'expires_at').nullable();
    t.datetime('created_at', { precision: 3 }).notNullable();
    t.unique(['product_id', 'user_id']);
    t.index(['user_id', 'site_id', 'acquired_at']);
  });

  await knex.schema.createTable('coupons', (t) => {
    t.increments('id');
    reference(t, 'site_id', 'sites', 'CASCADE');
    t.string('code', 64).notNullable();
    t.string('title', 255).nullable();
    // percent | amount
    t.string('discount_kind', 16).notNullable();
    t.integer('percent_off').unsigned().nullable();
    money(t, 'amount_off', true);
    t.integer('max_redemptions').unsigned().nullable();
    t.integer('redeemed_count').unsigned().notNullable().defaultTo(0);
    time(t, 'starts_at').nullable();
    time(t, 'ends_at').nullable();
    t.boolean('active').notNullable().defaultTo(true);
    t.integer('version').unsigned().notNullable().defaultTo(1);
    timestamps(t);
    t.unique(['site_id', 'code']);
  });

  // One row = one payment attempt; a retried checkout is another row with another trade_no (spec, Payment node rule 1).
  await knex.schema.createTable('payments', (t) => {
    t.increments('id');
    reference(t, 'site_id', 'sites', 'CASCADE');
    reference(t, 'user_id', 'users', 'RESTRICT');
    t.string('trade_no', 64).notNullable();
    t.bigInteger('amount').notNullable();
    t.string('currency', 3).notNullable();
    // credit_card | atm | convenience_store | line_pay | apple_pay | google_pay | free; null = abandoned before a method was chosen.
    t.string('payment_type', 32).nullable();
    // unpaid | paid | failed | expired | canceled
    t.string('payment_state', 16).notNullable();
    time(t, 'paid_at').nullable();
    // ATM / convenience-store instructions for unpaid or expired payments.
    t.string('bank_code', 16).nullable();
    t.string('bank_name', 128).nullable();
    t.string('code_no', 64).nullable();
    time(t, 'expired_at').nullable();
    // Installment plan.
    t.integer('installment_count').unsigned().nullable();
    t.bigInteger('installment_amount').nullable();
    t.string('installment_interval', 16).nullable();
    // Refund set: none | requested | processing | refunded | partially_refunded | rejected
    t.string('refunding_state', 24).notNullable().defaultTo('none');
    t.bigInteger('refunded_amount').notNullable().defaultTo(0);
    time(t, 'refunded_at').nullable();
    time(t, 'refund_requested_at').nullable();
    timestamps(t);
    t.unique(['site_id', 'trade_no']);
    // viewer.payments: newest first per member and site.
    t.index(['user_id', 'site_id', 'created_at']);
    t.index(['site_id', 'created_at']);
  });

  await knex.schema.createTable('payment_line_items', (t) => {
    t.increments('id');
    reference(t, 'payment_id', 'payments', 'CASCADE');
    t.integer('position').unsigned().notNullable();
    // course | digital_product | consulting | event | membership_plan | other
    t.string('item_kind', 24).notNullable();
    t.integer('item_id').unsigned().nullable();
    t.string('title', 255).notNullable();
    t.integer('quantity').unsigned().notNullable().defaultTo(1);
    t.bigInteger('unit_amount').notNullable();
    t.bigInteger('amount').notNullable();
    t.unique(['payment_id', 'position']);
  });

  await knex.schema.createTable('payment_adjustments', (t) => {
    t.increments('id');
    reference(t, 'payment_id', 'payments', 'CASCADE');
    t.integer('position').unsigned().notNullable();
    // coupon | promotion
    t.string('kind', 16).notNullable();
    t.string('code', 64).nullable();
    t.string('title', 255).notNullable();
    // Negative for discounts, in the payment's currency.
    t.bigInteger('amount').notNullable();
    reference(t, 'coupon_id', 'coupons', 'SET NULL', true);
    t.unique(['payment_id', 'position']);
  });

  await knex.schema.createTable('payment_invoices', (t) => {
    t.increments('id');
    reference(t, 'payment_id', 'payments', 'CASCADE');
    t.string('invoice_no', 64).nullable();
    // personal | company | donation | electronic carrier kinds
    t.string('kind', 24).notNullable();
    t.string('title', 255).nullable();
    t.string('tax_id', 32).nullable();
    t.string('carrier', 64).nullable();
    // pending | issued | voided
    t.string('status', 16).notNullable();
    time(t, 'issued_at').nullable();
    t.unique(['payment_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['payment_invoices', 'payment_adjustments', 'payment_line_items', 'payments', 'coupons', 'digital_product_ownerships', 'digital_products']) {
    await knex.schema.dropTableIfExists(table);
  }
}
