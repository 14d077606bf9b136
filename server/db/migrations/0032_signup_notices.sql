CREATE TABLE "signup_notices" (
	"user_id" uuid PRIMARY KEY NOT NULL,
	"mailed_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "signup_notices" ADD CONSTRAINT "signup_notices_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE cascade ON UPDATE no action;