export * from './enums.js';
export * from './quota.js';
export * from './options.js';
export * from './schemas/common.js';
export * from './schemas/user.js';
export * from './schemas/option.js';
export * from './channel-types.js';
