/**
 * The database schema, one file per module. A module's tables belong to it: another module reaches them
 * only through that module's service.
 */
export * from './users';
export * from './auth';
export * from './trading';
export * from './news';
export * from './watchlist';
export * from './rules';
export * from './identities';
export * from './exchanges';
export * from './billing';
export * from './activity';
export * from './scorecard';
export * from './notifications';
export * from './protection';
