// The PostgreSQL schema BullMQ's PostgreSQL backend owns on the service's database. It lives on the db floor
// because the ORM must keep schema generation away from it, and the queue backend (jobs/) creates it.
export const BULLMQ_SCHEMA = 'bullmq';
