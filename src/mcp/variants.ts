import type { Variant } from '../config/config.js';

/** Whether a tool, resource or prompt exists in a variant: those without `variants` exist in both. */
export function existsIn(variant: Variant, item: { variants?: readonly Variant[] }): boolean {
  return (item.variants ?? ['A', 'B']).includes(variant);
}
