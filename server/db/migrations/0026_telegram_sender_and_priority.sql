ALTER TABLE "telegram_links" ADD COLUMN "telegram_user_id" bigint;--> statement-breakpoint
ALTER TABLE "telegram_outbox" ADD COLUMN "priority" text DEFAULT 'normal' NOT NULL;