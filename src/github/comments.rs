//! A pull request's comments (the issue-comment endpoints): every page of
//! them, and one comment created or updated. Used by `comment`.

use serde::Deserialize;
use serde_json::json;

use super::client::{Api, Write};
use super::error::{ApiError, Permission};
use super::policy::Asked;
use crate::validate::RepoName;

/// Pages of 100 comments read at most: 10,000 comments.
const MAX_PAGES: usize = 100;

/// The fields of an issue comment `comment` reads.
#[derive(Debug, Clone, Deserialize)]
pub struct IssueComment {
    pub id: u64,
    #[serde(default)]
    pub body: Option<String>,
    #[serde(default)]
    pub user: Option<User>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct User {
    pub login: String,
}

impl IssueComment {
    pub fn author(&self) -> Option<&str> {
        self.user.as_ref().map(|u| u.login.as_str())
    }
}

impl Api {
    /// Every comment of pull request `number`, oldest first:
    /// `GET /repos/{o}/{r}/issues/{n}/comments`, every page.
    pub async fn issue_comments(
        &self,
        repo: &RepoName,
        number: u64,
    ) -> Result<Vec<IssueComment>, ApiError> {
        let what = format!("comments of pull request #{number}");
        let first = format!("/repos/{repo}/issues/{number}/comments?per_page=100");
        let pages: Vec<Vec<IssueComment>> = self
            .get_pages(first, &what, Permission::PullRequests, repo, MAX_PAGES)
            .await?;
        Ok(pages.into_iter().flatten().collect())
    }

    /// `POST /repos/{o}/{r}/issues/{n}/comments`.
    pub async fn create_comment(
        &self,
        repo: &RepoName,
        number: u64,
        body: &str,
    ) -> Result<IssueComment, ApiError> {
        let what = format!("comment on pull request #{number}");
        let asked = Asked {
            what: &what,
            permission: Permission::PullRequestsWrite,
            repo,
        };
        let path = format!("/repos/{repo}/issues/{number}/comments");
        self.write(Write::Post, &path, &json!({ "body": body }), &asked)
            .await
    }

    /// `PATCH /repos/{o}/{r}/issues/comments/{id}`.
    pub async fn update_comment(
        &self,
        repo: &RepoName,
        id: u64,
        body: &str,
    ) -> Result<IssueComment, ApiError> {
        let what = format!("update of comment {id}");
        let asked = Asked {
            what: &what,
            permission: Permission::PullRequestsWrite,
            repo,
        };
        let path = format!("/repos/{repo}/issues/comments/{id}");
        self.write(Write::Patch, &path, &json!({ "body": body }), &asked)
            .await
    }
}
