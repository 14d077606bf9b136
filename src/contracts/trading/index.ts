/**
 * Trading on the wire (docs/product.md §3, §7): `POST /api/orders`, `GET /api/positions`, `POST /api/close_position`,
 * `POST /api/close_all_positions`, the positions socket, and the paper account. Numbers are numbers;
 * the browser formats them.
 */
export * from './account';
export * from './history';
export * from './limitOrders';
export * from './orders';
export * from './positions';
