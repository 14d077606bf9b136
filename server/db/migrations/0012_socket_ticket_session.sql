ALTER TABLE "socket_tickets" ADD COLUMN "family_id" text;--> statement-breakpoint
ALTER TABLE "socket_tickets" ADD COLUMN "session_expires_at" timestamp with time zone;