ALTER TABLE "login_challenges" ADD COLUMN "sign_in_method" text;--> statement-breakpoint
ALTER TABLE "login_challenges" ADD COLUMN "identity_id" uuid;--> statement-breakpoint
ALTER TABLE "refresh_tokens" ADD COLUMN "sign_in_method" text;--> statement-breakpoint
ALTER TABLE "refresh_tokens" ADD COLUMN "identity_id" uuid;--> statement-breakpoint
ALTER TABLE "remembered_devices" ADD COLUMN "identity_id" uuid;--> statement-breakpoint
CREATE INDEX "refresh_tokens_identity_idx" ON "refresh_tokens" USING btree ("identity_id");