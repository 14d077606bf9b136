ALTER TABLE "login_challenges" ADD COLUMN "token_hash" text;--> statement-breakpoint
ALTER TABLE "login_challenges" ADD CONSTRAINT "login_challenges_token_hash_unique" UNIQUE("token_hash");