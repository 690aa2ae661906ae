export { findVendorPlatform, type VendorPlatform } from '../../clients/vendor-platforms.js';
